import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { sleepUnlessAborted } from '../../src/util/sleep.js';
import { MAX_TIMER_MS } from '../../src/util/timers.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** Whether `promise` has settled, after the pending microtasks ran. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => {
    done = true;
  });
  await vi.advanceTimersByTimeAsync(0);
  return done;
}

describe('sleepUnlessAborted', () => {
  it('resolves once the time has passed, and leaves no timer behind', async () => {
    const sleep = sleepUnlessAborted(100, new AbortController().signal);
    await vi.advanceTimersByTimeAsync(99);
    expect(await settled(sleep)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await settled(sleep)).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('never resolves when the signal aborts first, and clears its timer at once', async () => {
    const controller = new AbortController();
    const sleep = sleepUnlessAborted(100, controller.signal);
    controller.abort();
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await settled(sleep)).toBe(false);
  });

  it('starts no timer for a signal already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const sleep = sleepUnlessAborted(100, controller.signal);
    expect(vi.getTimerCount()).toBe(0);
    expect(await settled(sleep)).toBe(false);
  });

  it('waits the longest a timer holds for a longer sleep, instead of resolving at once', async () => {
    const sleep = sleepUnlessAborted(MAX_TIMER_MS + 1, new AbortController().signal);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await settled(sleep)).toBe(false);
    await vi.advanceTimersByTimeAsync(MAX_TIMER_MS);
    expect(await settled(sleep)).toBe(true);
  });
});
