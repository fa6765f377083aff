import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SANDBOX_LIMITS } from '../../src/config/limits.js';
import { type CallHandlers, IsolatePool } from '../../src/sandbox/isolate-pool.js';
import { readReply } from '../../src/sandbox/outcomes.js';
import { loadPrelude } from '../../src/sandbox/prelude.js';
import { bundlePlugin } from '../../src/sources/plugins/bundle.js';
import { callRequest } from './call-request.js';

const fixture = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../../test/fixtures/plugins/counter/index.ts',
);

/** Handlers whose `ctx.sleep` ends only when the test says so. */
function heldHandlers(): CallHandlers & { release(): void; asked: Promise<void> } {
  let release = () => {};
  let asked = () => {};
  const askedPromise = new Promise<void>((resolve) => {
    asked = resolve;
  });
  return {
    log: () => {},
    progress: () => {},
    request: () => {
      asked();
      return new Promise<string>((resolve) => {
        release = () => resolve(JSON.stringify({ ok: true, value: null }));
      });
    },
    release: () => release(),
    asked: askedPromise,
  };
}

const quiet: CallHandlers = {
  log: () => {},
  progress: () => {},
  request: async () => JSON.stringify({ ok: true, value: null }),
};

let ids = 0;
function request(tool: string, input: object): string {
  ids += 1;
  return JSON.stringify(callRequest(ids, tool, input));
}

/** Calls `tool` of the plugin version `key`; answers with the reply's text, or the limit's message. */
async function call(
  pool: IsolatePool,
  key: string,
  tool = 'counter_next',
  handlers = quiet,
): Promise<string> {
  const json = request(tool, tool === 'counter_hold' ? { ms: 1 } : {});
  const outcome = await pool.text('call', key, tool, `c${ids}`, json, handlers);
  if (outcome.kind !== 'reply') throw new Error(outcome.message);
  return (
    (readReply(outcome.reply) as { result: { content: { text: string }[] } }).result.content[0]?.text ?? ''
  );
}

describe('isolate eviction in a pool', () => {
  let bundle = '';
  let pool: IsolatePool | undefined;
  /** The pool's clock, moved by the tests only. */
  let now = 0;
  const poolWith = (idleMs: number, maxLive: number) => {
    pool = new IsolatePool(loadPrelude, { idleMs, maxLive, now: () => now });
    return pool;
  };

  beforeAll(async () => {
    const built = await bundlePlugin(fixture);
    if (!built.ok) throw new Error(built.error);
    bundle = built.code;
  });
  afterEach(() => {
    pool?.close();
    now = 0;
  });

  it('disposes an isolate idle for idleMs and re-creates it on the next call, module state fresh', async () => {
    const p = poolWith(1_000, 10);
    p.load('counter@1', bundle, DEFAULT_SANDBOX_LIMITS);
    expect(await call(p, 'counter@1')).toBe('1');
    expect(await call(p, 'counter@1')).toBe('2');
    now += 999;
    p.sweep();
    expect(p.stats()).toMatchObject({ live: 1, evicted: { idle: 0, cap: 0 } });
    now += 1;
    p.sweep();
    expect(p.stats()).toMatchObject({ live: 0, evicted: { idle: 1, cap: 0 } });
    // Transparently made again, from the same bundle: the module-scope counter starts over.
    expect(await call(p, 'counter@1')).toBe('1');
    expect(p.stats().live).toBe(1);
  });

  it('counts idle time from the end of the last call, not from its start', async () => {
    const p = poolWith(1_000, 10);
    p.load('counter@1', bundle, DEFAULT_SANDBOX_LIMITS);
    expect(await call(p, 'counter@1')).toBe('1');
    const held = heldHandlers();
    const running = call(p, 'counter@1', 'counter_hold', held);
    await held.asked;
    now += 5_000;
    held.release();
    expect(await running).toBe('2');
    now += 500;
    p.sweep();
    expect(p.stats().live).toBe(1);
  });

  it('keeps at most maxLive isolates: a new one disposes the least recently used idle one', async () => {
    const p = poolWith(60_000, 2);
    for (const key of ['a@1', 'b@1', 'c@1']) p.load(key, bundle, DEFAULT_SANDBOX_LIMITS);
    await call(p, 'a@1');
    now += 1;
    await call(p, 'b@1');
    now += 1;
    await call(p, 'a@1'); // a is now more recent than b
    now += 1;
    await call(p, 'c@1');
    expect(p.stats()).toMatchObject({ live: 2, evicted: { idle: 0, cap: 1 } });
    // b went: a and c kept their module state, b starts over.
    expect(await call(p, 'a@1')).toBe('3');
    expect(await call(p, 'c@1')).toBe('2');
    expect(await call(p, 'b@1')).toBe('1');
  });

  it('never evicts an isolate with a call in flight for idleness', async () => {
    const p = poolWith(1_000, 10);
    p.load('a@1', bundle, DEFAULT_SANDBOX_LIMITS);
    const held = heldHandlers();
    const running = call(p, 'a@1', 'counter_hold', held);
    await held.asked;
    now += 10_000;
    p.sweep();
    expect(p.stats()).toMatchObject({ live: 1, evicted: { idle: 0, cap: 0 } });
    held.release();
    expect(await running).toBe('1');
    // Its module state survived the sweep.
    expect(await call(p, 'a@1')).toBe('2');
  });

  it('never evicts an isolate with a hook in flight', async () => {
    const p = poolWith(1_000, 1);
    p.load('a@1', bundle, DEFAULT_SANDBOX_LIMITS);
    expect(await call(p, 'a@1')).toBe('1');
    const held = heldHandlers();
    ids += 1;
    const hook = JSON.stringify({
      callId: `c${ids}`,
      phase: 'before',
      event: { sessionId: 's', toolUseId: 't', toolName: 'counter_next', input: { holdHook: true } },
      config: null,
      maxReplyChars: 10_000,
    });
    const running = p.text('hook', 'a@1', 'before', `c${ids}`, hook, held);
    await held.asked;
    now += 10_000;
    p.sweep();
    // A second plugin at cap 1 while the hook waits: a stays.
    p.load('b@1', bundle, DEFAULT_SANDBOX_LIMITS);
    await call(p, 'b@1');
    expect(p.stats().evicted).toEqual({ idle: 0, cap: 1 }); // b went, not a
    held.release();
    expect(await running).toMatchObject({ kind: 'reply' });
    expect(await call(p, 'a@1')).toBe('2');
  });

  it('lets busy isolates go over the cap, and disposes one when its calls end', async () => {
    const p = poolWith(60_000, 1);
    p.load('a@1', bundle, DEFAULT_SANDBOX_LIMITS);
    p.load('b@1', bundle, DEFAULT_SANDBOX_LIMITS);
    const heldA = heldHandlers();
    const heldB = heldHandlers();
    const runningA = call(p, 'a@1', 'counter_hold', heldA);
    await heldA.asked;
    const runningB = call(p, 'b@1', 'counter_hold', heldB);
    await heldB.asked;
    // Cap 1, both busy: neither may go.
    expect(p.stats()).toMatchObject({ live: 2, evicted: { idle: 0, cap: 0 } });
    heldA.release();
    expect(await runningA).toBe('1');
    // a's call ended over the cap: a, now idle, went.
    expect(p.stats()).toMatchObject({ live: 1, evicted: { idle: 0, cap: 1 } });
    heldB.release();
    expect(await runningB).toBe('1');
    expect(p.stats()).toMatchObject({ live: 1, evicted: { idle: 0, cap: 1 } });
    expect(await call(p, 'b@1')).toBe('2');
    expect(await call(p, 'a@1')).toBe('1');
  });

  it('answers every call of a burst over five plugins at cap 2, and ends within the cap', async () => {
    const p = poolWith(60_000, 2);
    const keys = ['a@1', 'b@1', 'c@1', 'd@1', 'e@1'];
    for (const key of keys) p.load(key, bundle, DEFAULT_SANDBOX_LIMITS);
    // A fixed pseudo-random order, ten calls in flight at a time (some over the cap while busy).
    let seed = 7;
    const pick = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return keys[seed % keys.length] as string;
    };
    for (let wave = 0; wave < 20; wave++) {
      now += 1;
      const answers = await Promise.all(Array.from({ length: 10 }, () => call(p, pick())));
      for (const answer of answers) expect(answer).toMatch(/^\d+$/);
    }
    const stats = p.stats();
    expect(stats.live).toBeLessThanOrEqual(2);
    expect(stats.evicted.cap).toBeGreaterThan(0);
  });

  it('applies new settings at once: a lower cap disposes idle isolates now', async () => {
    const p = poolWith(60_000, 10);
    for (const key of ['a@1', 'b@1', 'c@1']) {
      p.load(key, bundle, DEFAULT_SANDBOX_LIMITS);
      await call(p, key);
    }
    expect(p.stats().live).toBe(3);
    p.configure({ idleMs: 60_000, maxLive: 1 });
    expect(p.stats()).toMatchObject({ live: 1, maxLive: 1, evicted: { cap: 2 } });
    expect(await call(p, 'c@1')).toBe('2');
  });

  it('unloads an evicted version with nothing left live', async () => {
    const p = poolWith(1_000, 10);
    p.load('a@1', bundle, DEFAULT_SANDBOX_LIMITS);
    await call(p, 'a@1');
    now += 1_000;
    p.sweep();
    p.unload('a@1');
    expect(p.stats()).toMatchObject({ live: 0, evicted: { idle: 1 } });
  });
});
