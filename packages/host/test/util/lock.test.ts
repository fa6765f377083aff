import { describe, expect, it } from 'vitest';
import { AsyncMutex } from '../../src/util/lock.js';
import { deferred } from '../helpers.js';

describe('AsyncMutex', () => {
  it('runs critical sections one at a time, in arrival order, across awaits', async () => {
    const mutex = new AsyncMutex();
    const gate = deferred();
    const log: string[] = [];
    const first = mutex.run(async () => {
      log.push('1 in');
      await gate.promise;
      log.push('1 out');
    });
    const second = mutex.run(() => {
      log.push('2 in');
    });
    const third = mutex.run(() => {
      log.push('3 in');
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(['1 in']);
    gate.resolve();
    await Promise.all([first, second, third]);
    expect(log).toEqual(['1 in', '1 out', '2 in', '3 in']);
  });

  it('releases the lock when a section throws, and passes the error on', async () => {
    const mutex = new AsyncMutex();
    await expect(mutex.run(() => Promise.reject(new Error('bad')))).rejects.toThrow('bad');
    expect(await mutex.run(() => 'next')).toBe('next');
  });
});
