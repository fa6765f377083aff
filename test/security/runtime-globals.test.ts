/**
 * The web-standard globals of a plugin isolate (console, timers, fetch, URL, encoders, base64,
 * structuredClone, crypto) are written in the isolate's own realm: each is a possible way out, so
 * each is probed here — constructor chains, timers outliving their call, fetch without a grant,
 * randomness that another plugin could predict or share.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  attackPlugin,
  expectHealthy,
  expectRealmIntact,
  extraTool,
  HEALTHY_SOURCE,
  reportOf,
  SMALL_LIMITS,
  snapshotRealm,
  textOf,
  useHarness,
} from './helpers.js';

const WEB_GLOBALS = [
  'console',
  'setTimeout',
  'clearTimeout',
  'setInterval',
  'clearInterval',
  'queueMicrotask',
  'fetch',
  'Headers',
  'Response',
  'URL',
  'URLSearchParams',
  'TextEncoder',
  'TextDecoder',
  'atob',
  'btoa',
  'structuredClone',
  'crypto',
];

describe('web globals inside plugin isolates', () => {
  const h = useHarness();

  it('every one works as on the web, inside a call', async () => {
    const { session } = await h.start({
      plugins: {
        web: attackPlugin(
          'web',
          `
          const fired: string[] = [];
          await new Promise<void>((resolve) => setTimeout(() => { fired.push('timeout'); resolve(); }, 5));
          const cancelled = setTimeout(() => fired.push('cancelled'), 1);
          clearTimeout(cancelled);
          let ticks = 0;
          await new Promise<void>((resolve) => {
            const id = setInterval(() => { ticks++; if (ticks === 3) { clearInterval(id); resolve(); } }, 1);
          });
          await new Promise<void>((resolve) => queueMicrotask(resolve));
          const url = new URL('../b?x=1#h', 'https://example.com/a/c');
          url.searchParams.append('q', 'two words');
          const bytes = new TextEncoder().encode('héllo €');
          const uuid = crypto.randomUUID();
          const random = crypto.getRandomValues(new Uint8Array(32));
          const clone = structuredClone({ d: new Date(0), m: new Map([[1, 2]]) });
          return JSON.stringify({
            fired, ticks,
            href: url.href, q: url.searchParams.get('q'),
            decoded: new TextDecoder().decode(bytes), length: bytes.length,
            b64: btoa('hi!'), unb64: atob('aGkh'),
            uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(uuid),
            randomNonZero: random.some((b) => b !== 0),
            clone: clone.d instanceof Date && clone.m.get(1) === 2,
          });`,
        ),
      },
    });
    expect(reportOf(await session.call('attack', {}))).toEqual({
      fired: ['timeout'],
      ticks: 3,
      href: 'https://example.com/b?x=1&q=two+words#h',
      q: 'two words',
      decoded: 'héllo €',
      length: 10,
      b64: 'aGkh',
      unb64: 'hi!',
      uuid: true,
      randomNonZero: true,
      clone: true,
    });
  });

  it('their constructor chains reach only the isolate realm, never a host object', async () => {
    const before = snapshotRealm();
    const { session } = await h.start({
      plugins: {
        evil: attackPlugin(
          'evil',
          `
          const names = ${JSON.stringify(WEB_GLOBALS)};
          const g: any = globalThis;
          const probes: any[] = [];
          for (const n of names) {
            probes.push(g[n]);
            if (typeof g[n] === 'object') for (const k of Object.keys(g[n])) probes.push(g[n][k]);
          }
          probes.push(new URL('https://a.example/'), new TextEncoder(), new Headers(), crypto.getRandomValues, new URLSearchParams('a=1'));
          const timer = setTimeout(() => {}, 1); clearTimeout(timer);
          probes.push(timer);
          const seen: Record<string, string> = {};
          for (const p of probes) {
            const F = (p as any).constructor.constructor;
            const realmGlobal = F('return this')();
            if (realmGlobal !== globalThis) seen.foreign = 'a different global';
            for (const name of ['process', 'require', 'Buffer', 'module']) {
              const found = typeof F('return typeof ' + name)();
              if (F('return typeof ' + name)() !== 'undefined') seen[name] = found;
            }
          }
          return JSON.stringify({ seen, count: probes.length, timerType: typeof timer });`,
        ),
        healthy: HEALTHY_SOURCE,
      },
    });
    const report = reportOf<{ seen: Record<string, string>; count: number; timerType: string }>(
      await session.call('attack', {}),
    );
    expect(report.seen).toEqual({});
    expect(report.count).toBeGreaterThan(WEB_GLOBALS.length);
    expect(report.timerType).toBe('number');
    expectRealmIntact(before);
    await expectHealthy(session);
  });

  it('a timer, an interval or a microtask pending when its call ends never runs: not then, not in a later call', async () => {
    const lines: string[] = [];
    const { session } = await h.start({
      plugins: {
        evil: attackPlugin(
          'evil',
          `
          (globalThis as any).late = 0;
          setTimeout(() => { (globalThis as any).late++; console.log('late timeout'); ctx.fs.writeFile('data/x', 'x'); }, 20);
          setInterval(() => { (globalThis as any).late++; console.log('late interval'); }, 5);
          return 'scheduled';`,
          {
            moreTools: [
              extraTool(
                'report',
                `await ctx.sleep(150); return JSON.stringify({ late: (globalThis as any).late });`,
              ),
            ],
          },
        ),
      },
      settings: { evil: { limits: { ...SMALL_LIMITS } } },
    });
    const observer = { log: (_level: string, message: string) => lines.push(message) };
    expect(textOf(await session.call('attack', {}, undefined, { observer }))).toBe('scheduled');
    // The next call runs long past both delays; neither timer may fire in it or in the gap.
    expect(reportOf(await session.call('report', {}, undefined, { observer }))).toEqual({ late: 0 });
    expect(lines.filter((l) => l.includes('late'))).toEqual([]);
  });

  it('a structuredClone of 400,000 keys is refused with a DataCloneError naming the cap; the executor lives on', async () => {
    // In the executor process whatever the suite's sandbox: unbounded, this clone aborted V8.
    const { session } = await h.start({
      sandbox: 'process',
      plugins: {
        evil: attackPlugin(
          'evil',
          `
          const wide: Record<string, number> = {};
          for (let i = 0; i < 400_000; i++) wide['k' + i] = i;
          try { structuredClone(wide); return 'cloned'; } catch (e: any) { return e.name + ': ' + e.message; }`,
        ),
        healthy: HEALTHY_SOURCE,
      },
    });
    const outcome = await session.call('attack', {});
    expect(outcome.result.isError, textOf(outcome)).toBeUndefined();
    expect(textOf(outcome)).toMatch(/^DataCloneError: structuredClone: .*more than 100000 values/);
    await expectHealthy(session);
  });

  it('timers are refused outside a call (at load) with a message saying why', async () => {
    const { host } = await h.start({
      plugins: {
        evil: attackPlugin('evil', `return 'never';`, { pre: `setTimeout(() => {}, 1);` }),
      },
    });
    const report = host.plugins.find((p) => p.id === 'evil');
    expect(report?.status).toBe('failed');
    expect(report?.diagnostics.join('\n')).toMatch(/setTimeout works only while a tool call/);
  });

  it('timers keep working once their tool has been promoted to sync entries', async () => {
    const { session } = await h.start({
      plugins: {
        quick: attackPlugin(
          'quick',
          `return await new Promise<string>((resolve) => setTimeout(() => resolve('tick ' + input.n), 0));`,
        ),
      },
    });
    for (let n = 0; n < 12; n++) {
      expect(textOf(await session.call('attack', { n }))).toBe(`tick ${n}`);
    }
  });

  it("console.* goes to the call's log; a line logged outside a call arrives marked with the next call", async () => {
    const lines: [string, string][] = [];
    const { session } = await h.start({
      plugins: {
        chatty: attackPlugin(
          'chatty',
          `console.log('hello %s', 'world', { n: 1 }); console.warn('careful'); console.error(new Error('bad')); return 'ok';`,
          { pre: `console.info('loading');` },
        ),
      },
    });
    const observer = { log: (level: string, message: string) => lines.push([level, message]) };
    expect(textOf(await session.call('attack', {}, undefined, { observer }))).toBe('ok');
    expect(lines[0]).toEqual(['info', '[logged outside a call] loading']);
    expect(lines).toContainEqual(['info', 'hello world {"n":1}']);
    expect(lines).toContainEqual(['warn', 'careful']);
    expect(lines.find(([level]) => level === 'error')?.[1]).toMatch(/^Error: bad/);
  });
});

describe('fetch and crypto are no wider than ctx.fetch and the host CSPRNG', () => {
  const h = useHarness();
  let server: Server | undefined;
  let hits = 0;

  afterEach(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  });

  it('fetch without a grant is refused (code not-granted) and the server is never contacted', async () => {
    hits = 0;
    server = createServer((_req, res) => {
      hits++;
      res.end('reached');
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const { session } = await h.start({
      plugins: {
        evil: attackPlugin(
          'evil',
          `
          const out: string[] = [];
          for (const target of ['http://127.0.0.1:${port}/', new URL('http://localhost:${port}/x'), { url: 'http://127.0.0.1:${port}/y' }]) {
            try { const r = await fetch(target as any); out.push('ok ' + r.status); }
            catch (e: any) { out.push(e.code + ': ' + e.message); }
          }
          return JSON.stringify(out);`,
          { permissions: `{ net: ['127.0.0.1:${port}'] }` },
        ),
      },
    });
    const out = reportOf<string[]>(await session.call('attack', {}));
    expect(out).toHaveLength(3);
    for (const line of out) expect(line).toMatch(/^not-granted: ctx\.fetch .* is not allowed/);
    expect(hits).toBe(0);
  });

  it('two plugins draw different randomness, never the same bytes, and a restarted isolate starts afresh', async () => {
    const body = `
      const uuids = Array.from({ length: 40 }, () => crypto.randomUUID());
      const bytes = Array.from(crypto.getRandomValues(new Uint8Array(64)));
      return JSON.stringify({ uuids, bytes });`;
    const { session } = await h.start({
      plugins: {
        a: attackPlugin('a', body, {
          moreTools: [extraTool('crash_a', `const big: string[] = []; for (;;) big.push('x'.repeat(1e6));`)],
        }),
        b: attackPlugin('b', body).replace("name: 'attack'", "name: 'attack_b'"),
      },
      limits: { memoryMb: 32, ...SMALL_LIMITS },
    });
    type Draw = { uuids: string[]; bytes: number[] };
    const a1 = reportOf<Draw>(await session.call('attack', {}));
    const b1 = reportOf<Draw>(await session.call('attack_b', {}));
    // A breach disposes plugin a's isolate; the next call gets a fresh one.
    expect((await session.call('crash_a', {})).result.isError).toBe(true);
    const a2 = reportOf<Draw>(await session.call('attack', {}));
    const uuids = [...a1.uuids, ...b1.uuids, ...a2.uuids];
    expect(new Set(uuids).size).toBe(uuids.length);
    const hex = (d: Draw) => Buffer.from(d.bytes).toString('hex');
    expect(new Set([hex(a1), hex(b1), hex(a2)]).size).toBe(3);
    // Not a counter or a clock: bytes spread over the whole range.
    expect(new Set([...a1.bytes, ...b1.bytes, ...a2.bytes]).size).toBeGreaterThan(64);
  });

  it('a Node global used by mistake fails with a message naming what to use instead', async () => {
    const { session } = await h.start({
      plugins: { node: attackPlugin('node', `return process.env.HOME;`) },
    });
    const outcome = await session.call('attack', {});
    expect(outcome.result.isError).toBe(true);
    expect(textOf(outcome)).toMatch(
      /process is not defined: plugins run in a sandbox without Node globals; use ctx\.env\.get/,
    );
  });
});
