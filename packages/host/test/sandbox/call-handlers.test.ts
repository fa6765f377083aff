/**
 * The host end of a call's sleeps (`ctx.sleep` and every plugin timer): a sleep still pending
 * when its call ends must not keep a host timer alive, however long it asked for.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { callHandlers } from '../../src/sandbox/call-handlers.js';
import { DEFAULT_LOG_LIMITS, LogWindow } from '../../src/sandbox/log-budget.js';
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

/**
 * The host's own count of a call's log lines: it trusts nothing the isolate counted, so these
 * feed the handlers directly, as a runtime that ignored its caps would.
 */
describe('callHandlers log caps', () => {
  function recording() {
    const lines: [string, string, unknown][] = [];
    return {
      lines,
      sinks: { log: (l: string, m: string, d: unknown) => lines.push([l, m, d]), progress() {} },
    };
  }

  it('lines past linesPerCall are dropped on the host, and the call ends with one marker saying how many', () => {
    const { lines, sinks } = recording();
    const handlers = callHandlers(sinks, undefined, new CancelSource(), {
      limits: { ...DEFAULT_LOG_LIMITS, linesPerCall: 10 },
    });
    for (let i = 0; i < 10_000; i++) handlers.log('info', `line ${i}`, '');
    handlers.end?.();
    expect(lines).toHaveLength(11);
    expect(lines[9]).toEqual(['info', 'line 9', undefined]);
    expect(lines[10]).toEqual([
      'warn',
      '[9990 log lines of this call dropped: over limits.logs.linesPerCall (10)]',
      undefined,
    ]);
  });

  it('a line over lineBytes is cut, and data that does not fit is dropped unparsed', () => {
    const { lines, sinks } = recording();
    const handlers = callHandlers(sinks, undefined, new CancelSource(), {
      limits: { ...DEFAULT_LOG_LIMITS, lineBytes: 100 },
    });
    handlers.log('info', 'é'.repeat(1000), '');
    handlers.log('info', 'short', JSON.stringify({ blob: 'x'.repeat(10_000) }));
    handlers.log('info', 'fits', '{"n":1}');
    expect(lines[0]?.[1]).toMatch(/^é+… \[cut at limits\.logs\.lineBytes \(100\)\]$/);
    expect(Buffer.byteLength(lines[0]?.[1] ?? '')).toBeLessThanOrEqual(100);
    expect(lines.slice(1)).toEqual([
      ['info', 'short', '[data over limits.logs.lineBytes (100) dropped]'],
      ['info', 'fits', { n: 1 }],
    ]);
  });

  it("a plugin's window is shared by its calls and drops lines past linesPerMinute", () => {
    const window = new LogWindow(() => 0);
    const limits = { ...DEFAULT_LOG_LIMITS, linesPerMinute: 5 };
    const calls = [recording(), recording()];
    for (const { sinks } of calls) {
      const handlers = callHandlers(sinks, undefined, new CancelSource(), {
        limits,
        plugin: { id: 'chatty', window },
      });
      for (let i = 0; i < 4; i++) handlers.log('info', `line ${i}`, '');
      handlers.end?.();
    }
    expect(calls[0]?.lines).toHaveLength(4);
    expect(calls[1]?.lines.map(([, message]) => message)).toEqual([
      'line 0',
      '[3 log lines of this call dropped: plugin "chatty" is over limits.logs.linesPerMinute (5)]',
    ]);
  });
});
