import ivm from 'isolated-vm';
import { afterEach, describe, expect, it } from 'vitest';
import { IsolateGuard } from '../../src/sandbox/isolate-guard.js';
import { CancelSource } from '../../src/util/cancel.js';

/**
 * Calls held while async entries run (plugin-isolate.ts holds a sync-path call then): they start
 * when the last entry settles, in order, and one cancelled meanwhile never starts.
 */

const limits = { memoryMb: 32, timeoutMs: 5_000, cpuMs: 1_000 } as never;

describe('IsolateGuard.hold', () => {
  const isolates: ivm.Isolate[] = [];
  afterEach(() => {
    for (const isolate of isolates.splice(0)) isolate.dispose();
  });

  function guarded() {
    const isolate = new ivm.Isolate({ memoryLimit: 32 });
    isolates.push(isolate);
    return new IsolateGuard(isolate, limits, { abortEntry: () => undefined, fail: () => {} });
  }

  /** An async entry that runs until `settle` is called. */
  function entry(guard: IsolateGuard): () => void {
    let settle = () => {};
    guard.tracked(new Promise<void>((resolve) => (settle = resolve)));
    return settle;
  }

  it('releases the held calls in order when the last async entry settles, not before', async () => {
    const guard = guarded();
    const first = entry(guard);
    const second = entry(guard);
    const started: string[] = [];
    const a = guard.hold('a', undefined).then((start) => start && started.push('a'));
    const b = guard.hold('b', undefined).then((start) => start && started.push('b'));
    expect(guard.held).toBe(true);
    expect(guard.holds('a') && guard.holds('b')).toBe(true);
    first();
    await Promise.resolve().then(() => undefined);
    expect(started).toEqual([]);
    expect(guard.asyncEntries).toBe(1);
    second();
    await Promise.all([a, b]);
    expect(started).toEqual(['a', 'b']);
    expect(guard.held).toBe(false);
    expect(guard.holds('a')).toBe(false);
  });

  it("never starts a held call that the pool aborts (the executor's abort frame) or its caller cancels", async () => {
    const guard = guarded();
    const settle = entry(guard);
    const cancel = new CancelSource();
    const aborted = guard.hold('aborted', undefined);
    const cancelled = guard.hold('cancelled', cancel);
    const kept = guard.hold('kept', undefined);
    guard.abort('aborted', 'the client cancelled');
    cancel.stop('gone');
    settle();
    expect(await Promise.all([aborted, cancelled, kept])).toEqual([false, false, true]);
    expect(guard.holds('aborted')).toBe(false);
  });
});
