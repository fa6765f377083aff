/**
 * Hostile values and resource exhaustion: getters, thenables, proxies, looping errors, runaway
 * loops, memory and result bombs. Each must end as an `is_error` result naming what stopped it
 * (a hang is caught by the test's timeout; how long a limit takes to act is bench/'s business),
 * and the plugin's next call must work (its isolate is re-created).
 */
import { describe, expect, it } from 'vitest';
import {
  attackPlugin,
  expectHealthy,
  expectRealmIntact,
  extraTool,
  HEALTHY_SOURCE,
  SMALL_LIMITS,
  snapshotRealm,
  textOf,
  useHarness,
} from './helpers.js';

const LIMIT_NAMED = /timeoutMs|cpuMs|memoryMb|maxResultChars|crashed|isolate failed/;

describe('hostile values and runaway code', () => {
  const h = useHarness();

  /** Starts `evil` (tool `attack` with `body`, tool `ok`) beside `healthy`, with small limits. */
  async function hostile(
    body: string,
    extra: {
      pre?: string;
      sandbox?: 'inline' | 'process';
      limits?: { timeoutMs: number; cpuMs: number };
    } = {},
  ) {
    const before = snapshotRealm();
    const started = await h.start({
      ...(extra.sandbox === undefined ? {} : { sandbox: extra.sandbox }),
      plugins: {
        evil: attackPlugin('evil', body, {
          ...(extra.pre === undefined ? {} : { pre: extra.pre }),
          moreTools: [extraTool('ok', "return 'fine';")],
        }),
        healthy: HEALTHY_SOURCE,
      },
      settings: { evil: { limits: { ...(extra.limits ?? SMALL_LIMITS) } } },
    });
    return { ...started, before };
  }

  /** The next call of the same plugin works and the other plugin and the host realm are unharmed. */
  async function expectRecovered(started: Awaited<ReturnType<typeof hostile>>) {
    const next = await started.session.call('ok', {});
    expect(textOf(next)).toBe('fine');
    await expectHealthy(started.session);
    expectRealmIntact(started.before);
  }

  it('a result whose getter loops forever is stopped by a limit', async () => {
    const started = await hostile(`
      const result: any = { content: [{ type: 'text', text: 'x' }] };
      Object.defineProperty(result, 'structuredContent', { enumerable: true, get() { for (;;) {} } });
      return result;`);
    const outcome = await started.session.call('attack', {});
    expect(outcome.result.isError).toBe(true);
    expect(textOf(outcome)).toMatch(LIMIT_NAMED);
    await expectRecovered(started);
  });

  it('a returned thenable that never settles is stopped by the time limit', async () => {
    const started = await hostile(`return { then() {} };`);
    const outcome = await started.session.call('attack', {});
    expect(outcome.result.isError).toBe(true);
    expect(textOf(outcome)).toMatch(/timeoutMs/);
    await expectRecovered(started);
  });

  it('a returned thenable whose then() loops forever is stopped by a limit', async () => {
    const started = await hostile(`return { then(resolve: any) { for (;;) {} } };`);
    const outcome = await started.session.call('attack', {});
    expect(outcome.result.isError).toBe(true);
    expect(textOf(outcome)).toMatch(LIMIT_NAMED);
    await expectRecovered(started);
  });

  it('a thenable that re-schedules itself forever (microtask spin) is stopped by a limit', async () => {
    const started = await hostile(`
      const spin: any = { then(resolve: any) { Promise.resolve().then(() => resolve(spin)); } };
      return spin;`);
    const outcome = await started.session.call('attack', {});
    expect(outcome.result.isError).toBe(true);
    expect(textOf(outcome)).toMatch(LIMIT_NAMED);
    await expectRecovered(started);
  });

  it('a Proxy returned as the content array, with looping traps, is stopped by a limit', async () => {
    const started = await hostile(`
      const trap = () => { for (;;) {} };
      return { content: new Proxy([], { get: trap, has: trap, ownKeys: trap, getOwnPropertyDescriptor: trap, getPrototypeOf: trap }) };`);
    const outcome = await started.session.call('attack', {});
    expect(outcome.result.isError).toBe(true);
    expect(textOf(outcome)).toMatch(LIMIT_NAMED);
    await expectRecovered(started);
  });

  it('a Proxy returned as the result, with throwing traps, gives a clean error', async () => {
    const started = await hostile(`
      const trap = () => { throw new Error('trap sprung'); };
      return new Proxy({}, { get: trap, has: trap, ownKeys: trap, getOwnPropertyDescriptor: trap, getPrototypeOf: trap });`);
    const outcome = await started.session.call('attack', {});
    expect(outcome.result.isError).toBe(true);
    expect(textOf(outcome)).toMatch(/^Tool "attack" failed: /);
    await expectRecovered(started);
  });

  it('an Error whose message getter loops forever is thrown: a clean error, no hang', async () => {
    const started = await hostile(`
      const error = new Error('placeholder');
      Object.defineProperty(error, 'message', { get() { for (;;) {} } });
      Object.defineProperty(error, 'name', { get() { for (;;) {} } });
      Object.defineProperty(error, 'stack', { get() { for (;;) {} } });
      throw error;`);
    const outcome = await started.session.call('attack', {});
    expect(outcome.result.isError).toBe(true);
    expect(textOf(outcome)).toMatch(/^Tool "attack" (failed|of plugin "evil" was stopped)/);
    await expectRecovered(started);
  });

  it('a thrown Proxy whose every trap loops is stopped, never hangs the host', async () => {
    const started = await hostile(`
      const trap = () => { for (;;) {} };
      throw new Proxy({}, { get: trap, has: trap, ownKeys: trap, getOwnPropertyDescriptor: trap, getPrototypeOf: trap });`);
    const outcome = await started.session.call('attack', {});
    expect(outcome.result.isError).toBe(true);
    expect(textOf(outcome)).toMatch(LIMIT_NAMED);
    await expectRecovered(started);
  });

  it('a toJSON that loops forever in structuredContent is stopped by a limit', async () => {
    const started = await hostile(`
      return { content: [{ type: 'text', text: 'x' }], structuredContent: { a: { toJSON() { for (;;) {} } } } };`);
    const outcome = await started.session.call('attack', {});
    expect(outcome.result.isError).toBe(true);
    expect(textOf(outcome)).toMatch(LIMIT_NAMED);
    await expectRecovered(started);
  });

  it('a synchronous infinite loop is stopped by the time limit', async () => {
    const started = await hostile(`for (;;) {}`);
    const outcome = await started.session.call('attack', {});
    expect(outcome.result.isError).toBe(true);
    expect(textOf(outcome)).toMatch(/timeoutMs|cpuMs/);
    await expectRecovered(started);
  });

  it('an async loop that spins on awaits (never yielding to the host) is stopped by a limit', async () => {
    const started = await hostile(`await null; for (;;) { await null; }`);
    const outcome = await started.session.call('attack', {});
    expect(outcome.result.isError).toBe(true);
    expect(textOf(outcome)).toMatch(/timeoutMs|cpuMs/);
    await expectRecovered(started);
  });

  it('Atomics.wait on a SharedArrayBuffer, blocking forever, is stopped by a limit', async () => {
    const started = await hostile(`
      const cell = new Int32Array(new SharedArrayBuffer(4));
      Atomics.wait(cell, 0, 0);
      return 'woke up';`);
    const outcome = await started.session.call('attack', {});
    expect(outcome.result.isError).toBe(true);
    expect(textOf(outcome)).toMatch(LIMIT_NAMED);
    await expectRecovered(started);
  });

  it('unbounded recursion ends as a clean error and the isolate keeps serving', async () => {
    const started = await hostile(`const f = (n: number): number => f(n + 1) + 1; return String(f(0));`);
    const outcome = await started.session.call('attack', {});
    expect(outcome.result.isError).toBe(true);
    expect(textOf(outcome)).toMatch(/Maximum call stack size exceeded|timeoutMs|cpuMs/);
    await expectRecovered(started);
  });

  it('a result nested a million levels deep gives a clean error', async () => {
    const started = await hostile(`
      let deep: any = [];
      for (let i = 0; i < 1_000_000; i++) deep = [deep];
      return { content: [{ type: 'text', text: 'x' }], structuredContent: { deep } };`);
    const outcome = await started.session.call('attack', {});
    expect(outcome.result.isError).toBe(true);
    await expectRecovered(started);
  });

  it('a huge result is refused with maxResultChars, without copying it out', async () => {
    const before = snapshotRealm();
    const { session } = await h.start({
      plugins: {
        evil: attackPlugin('evil', `return 'x'.repeat(8_000_000);`, {
          moreTools: [extraTool('ok', "return 'fine';")],
        }),
        healthy: HEALTHY_SOURCE,
      },
      settings: { evil: { limits: { ...SMALL_LIMITS, maxResultChars: 100_000 } } },
    });
    const outcome = await session.call('attack', {});
    expect(outcome.result.isError).toBe(true);
    expect(textOf(outcome)).toMatch(/maxResultChars \(100000 characters\)/);
    expect(textOf(outcome).length).toBeLessThan(1000);
    expect(textOf(await session.call('ok', {}))).toBe('fine');
    await expectHealthy(session);
    expectRealmIntact(before);
  });

  it('a memory bomb (process sandbox) is stopped by memoryMb or an executor restart; host RSS stays sane', async () => {
    const rssBefore = process.memoryUsage().rss;
    const started = await hostile(
      `
      const hoard: any[] = [];
      for (let i = 0; ; i++) hoard.push(new Array(1_000_000).fill(i), 'y'.repeat(1 << 20) + i);`,
      { sandbox: 'process' },
    );
    const outcome = await started.session.call('attack', {});
    expect(outcome.result.isError).toBe(true);
    expect(textOf(outcome)).toMatch(/memoryMb|executor process died|timeoutMs|cpuMs|crashed|isolate failed/);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(200 * 1024 * 1024);
    await expectRecovered(started);
  });

  it('a memory bomb (inline) is stopped by a limit and host RSS stays sane', async () => {
    const rssBefore = process.memoryUsage().rss;
    const started = await hostile(`
      const hoard: any[] = [];
      for (let i = 0; ; i++) hoard.push(new Array(100_000).fill(i));`);
    const outcome = await started.session.call('attack', {});
    expect(outcome.result.isError).toBe(true);
    expect(textOf(outcome)).toMatch(LIMIT_NAMED);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(400 * 1024 * 1024);
    await expectRecovered(started);
  });

  it('a spinning plugin does not stall the host: another plugin answers meanwhile', async () => {
    // Ended by its CPU budget, not by the clock: the spinner needs a second of CPU while the
    // healthy call needs milliseconds, so on however loaded a machine the answers come in order.
    const started = await hostile(`for (;;) {}`, { limits: { timeoutMs: 60_000, cpuMs: 1000 } });
    let spinningEnded = false;
    const spinning = started.session.call('attack', {}).finally(() => {
      spinningEnded = true;
    });
    // Inline isolates run on isolated-vm's threads, so the host's event loop stays free.
    await expectHealthy(started.session);
    expect(spinningEnded, 'the healthy call waited for the spinning one').toBe(false);
    const spun = await spinning;
    expect(spun.result.isError).toBe(true);
    expect(textOf(spun)).toMatch(/cpuMs/);
    await expectRecovered(started);
  });
});

describe('stray work after a call', () => {
  const h = useHarness();

  it.each([
    ['within its entry', ''],
    ['after a capability round trip', 'await ctx.sleep(1);'],
  ])(
    'an unhandled rejection %s fails neither that call nor the next, and keeps the isolate',
    async (_, wait) => {
      const lines: string[] = [];
      const observer = { log: (_level: string, message: string) => lines.push(message) };
      const { session } = await h.start({
        plugins: {
          evil: attackPlugin(
            'evil',
            `
          ${wait}
          const g = globalThis as any;
          g.calls = (g.calls ?? 0) + 1;
          Promise.resolve().then(() => { throw new Error('stray after the reply'); });
          return 'call ' + g.calls;`,
            {
              moreTools: [extraTool('ok', `await ctx.sleep(1); return 'fine ' + (globalThis as any).calls;`)],
            },
          ),
        },
        settings: { evil: { limits: { ...SMALL_LIMITS } } },
      });
      // Module state survives from call to call: the isolate was never reset.
      for (let n = 1; n <= 3; n++) {
        expect(textOf(await session.call('attack', {}, undefined, { observer }))).toBe(`call ${n}`);
        expect(textOf(await session.call('ok', {}, undefined, { observer }))).toBe(`fine ${n}`);
      }
      // Logged to its call while that call still runs (a rejection seen after the reply may find it gone).
      expect(lines).toContain('uncaught error in a promise: stray after the reply');
    },
  );
});

describe('timer callbacks are charged to their call', () => {
  const h = useHarness();

  it("CPU spent in interval callbacks counts against the call's cpuMs", async () => {
    const { session } = await h.start({
      plugins: {
        evil: attackPlugin(
          'evil',
          `
          setInterval(() => { const end = Date.now() + 20; while (Date.now() < end) {} }, 5);
          await ctx.sleep(20_000);
          return 'never';`,
        ),
      },
      settings: { evil: { limits: { timeoutMs: 30_000, cpuMs: 300 } } },
    });
    const outcome = await session.call('attack', {});
    expect(outcome.result.isError).toBe(true);
    expect(textOf(outcome)).toMatch(/cpuMs: 300/);
  });
});
