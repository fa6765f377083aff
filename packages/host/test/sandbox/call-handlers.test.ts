/**
 * The host end of a call's sleeps (`ctx.sleep` and every plugin timer): a sleep still pending
 * when its call ends must not keep a host timer alive, however long it asked for.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { callHandlers } from '../../src/sandbox/inline.js';
import { CancelSource } from '../../src/util/cancel.js';

const sinks = { log: () => {}, progress: () => {} };

describe('callHandlers sleeps', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a sleep pending when its call ends clears its host timer and never answers', async () => {
    vi.useFakeTimers();
    const handlers = callHandlers(sinks, undefined, new CancelSource());
    let answered = false;
    void handlers.request('sleep', JSON.stringify({ ms: 10 * 60_000 })).then(() => {
      answered = true;
    });
    void handlers.request('sleep', JSON.stringify({ ms: 5 * 60_000 }));
    expect(vi.getTimerCount()).toBe(2);
    handlers.end?.();
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(20 * 60_000);
    expect(answered).toBe(false);
  });

  it('a call that never sleeps allocates nothing for it and ends cleanly', () => {
    const handlers = callHandlers(sinks, undefined, new CancelSource());
    expect(() => handlers.end?.()).not.toThrow();
  });

  it('a failed capability request carries the code plugin code reads', async () => {
    const failing = Object.assign(new Error('ctx.fs.readFile of "x" failed'), { pluginCode: 'ENOENT' });
    const handlers = callHandlers(sinks, () => Promise.reject(failing), new CancelSource());
    expect(JSON.parse(await handlers.request('fs.readFile', '{"path":"x"}'))).toEqual({
      ok: false,
      error: 'ctx.fs.readFile of "x" failed',
      code: 'ENOENT',
    });
  });
});
