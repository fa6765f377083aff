import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { type MatchThread, releaseThread, takeThread } from '../../../src/sources/builtin/grep-pool.js';
import { IDLE } from '../../../src/sources/builtin/grep-protocol.js';

const taken: MatchThread[] = [];
const take = (memoryMb: number) => {
  const thread = takeThread(memoryMb);
  taken.push(thread);
  return thread;
};
afterEach(async () => {
  // Empties the idle slot too: whatever is left there is among these.
  await Promise.all(taken.splice(0).map((thread) => thread.worker.terminate()));
});

describe('grep thread pool', () => {
  it('hands the idle thread to the next search, its progress slot idle', () => {
    const first = take(64);
    releaseThread(first);
    const second = take(64);
    expect(second).toBe(first);
    expect(Atomics.load(second.progress, 0)).toBe(IDLE);
  });

  it('keeps one idle thread at most and ends the others', async () => {
    const a = take(64);
    const b = take(64);
    expect(b).not.toBe(a);
    releaseThread(a);
    const exited = once(b.worker, 'exit');
    releaseThread(b);
    await exited;
    expect(take(64)).toBe(a);
  });

  it('ends the idle thread when a search needs another heap size', async () => {
    const small = take(64);
    const exited = once(small.worker, 'exit');
    releaseThread(small);
    const large = take(128);
    expect(large).not.toBe(small);
    await exited;
  });

  it('does not hand out a thread that died while idle', async () => {
    const first = take(64);
    releaseThread(first);
    await first.worker.terminate();
    expect(take(64)).not.toBe(first);
  });
});
