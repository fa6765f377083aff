import { describe, expect, it } from 'vitest';
import { Turns } from '../../packages/host/src/util/turns.js';

describe('Turns: a pass of mostly synchronous steps gives the event loop a turn', () => {
  it('runs `every` steps at once, then each next group one turn of the loop later', async () => {
    const log: (number | string)[] = [];
    // Markers one loop turn apart: an immediate, and one it schedules (which runs a turn later).
    setImmediate(() => {
      log.push('turn 1');
      setImmediate(() => log.push('turn 2'));
    });
    const turns = new Turns(2);
    const steps = [0, 1, 2, 3, 4].map((i) => turns.next().then(() => log.push(i)));
    await Promise.all(steps);
    expect(log).toEqual([0, 1, 'turn 1', 2, 3, 'turn 2', 4]);
  });
});
