/**
 * The isolate made ahead for the next plugin start (isolate-spare.ts), with real isolates: a start
 * that fits takes it, one that does not makes its own, none carries anything of a plugin that ran
 * before, and a spare nobody takes is given back.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { DescribeReply } from '@toolhost/plugin-sdk/protocol';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_SANDBOX_LIMITS } from '../../src/config/limits.js';
import { RunningCalls } from '../../src/sandbox/call-handlers.js';
import { IsolatePool } from '../../src/sandbox/isolate-pool.js';
import { IsolateSpare, REFILL_AFTER_MS } from '../../src/sandbox/isolate-spare.js';
import { readReply } from '../../src/sandbox/outcomes.js';
import type { PluginIsolate } from '../../src/sandbox/plugin-isolate.js';
import { loadPrelude, type Prelude } from '../../src/sandbox/prelude.js';
import { bundlePlugin } from '../../src/sources/plugins/bundle.js';
import { deferred } from '../helpers.js';
import { callRequest } from './call-request.js';

const handlers = { log() {}, progress() {}, request: async () => '{"ok":false,"error":"none"}' };
const WAIT = { timeout: 20_000, interval: 5 };

/**
 * A plugin that leaves a mark on its global object and says, in its one tool's description, the
 * marks it found there when it was loaded: another plugin's mark there would be a leak.
 */
function markingSource(id: string): string {
  return `import { definePlugin, defineTool } from '@toolhost/plugin-sdk';
import * as z from 'zod';
const marks = (o) => Object.getOwnPropertyNames(o).filter((n) => n.startsWith('mark_'));
const found = [...marks(globalThis), ...marks(Object.prototype)].join(',') || 'none';
globalThis['mark_${id}'] = true;
Object.defineProperty(Object.prototype, 'mark_proto_${id}', { value: true });
export default definePlugin({
  id: '${id}',
  tools: [defineTool({ name: '${id}_t', description: 'found ' + found, input: z.object({}), execute: () => 'ok' })],
});
`;
}

const bundles: Record<string, string> = {};
let dir = '';
const made: PluginIsolate[] = [];

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'toolhost-spare-'));
  for (const id of ['a', 'b', 'c']) {
    await mkdir(path.join(dir, id));
    await writeFile(path.join(dir, id, 'index.ts'), markingSource(id));
    const built = await bundlePlugin(path.join(dir, id, 'index.ts'));
    if (!built.ok) throw new Error(built.error);
    bundles[id] = built.code;
  }
});

afterAll(async () => {
  for (const isolate of made.splice(0)) isolate.dispose();
  await rm(dir, { recursive: true, force: true });
});

async function descriptionOf(isolate: PluginIsolate): Promise<string> {
  const outcome = await isolate.describe('null');
  if (outcome.kind !== 'reply' || !outcome.reply.ok) throw new Error(JSON.stringify(outcome));
  return (outcome.reply as Extract<DescribeReply, { ok: true }>).manifest.tools[0]?.description ?? '';
}

/** Runs `body` on fake timers, then puts the real ones back and disposes `spare`. */
async function onFakeTimers(spare: IsolateSpare, body: () => Promise<void>): Promise<void> {
  vi.useFakeTimers();
  try {
    await body();
  } finally {
    vi.useRealTimers();
    spare.dispose();
  }
}

describe('IsolateSpare', () => {
  it('serves the next start with the isolate it made ahead, which holds nothing of the plugin before', async () => {
    const prelude = await loadPrelude(bundles.a as string);
    const spare = new IsolateSpare(handlers);
    const first = await spare.take(prelude, DEFAULT_SANDBOX_LIMITS);
    made.push(first);
    await first.load(bundles.a as string);
    expect(await descriptionOf(first)).toBe('found none');
    expect(spare.counts).toEqual({ served: 0, missed: 1 });
    // Made once starts pause, then the next start takes it.
    await vi.waitFor(() => expect(spare.held).toBe(true), WAIT);
    const second = await spare.take(prelude, DEFAULT_SANDBOX_LIMITS);
    made.push(second);
    expect(spare.counts).toEqual({ served: 1, missed: 1 });
    expect(second).not.toBe(first);
    await second.load(bundles.b as string);
    // Plugin a's global and what it added to Object.prototype are in a's isolate only.
    expect(await descriptionOf(second)).toBe('found none');
    expect(await descriptionOf(first)).toBe('found none');
    spare.dispose();
  });

  it('makes its own isolate for a start under other limits, and a spare for those next', async () => {
    const prelude = await loadPrelude(bundles.a as string);
    const spare = new IsolateSpare(handlers);
    made.push(await spare.take(prelude, DEFAULT_SANDBOX_LIMITS));
    await vi.waitFor(() => expect(spare.held).toBe(true), WAIT);
    const other = { ...DEFAULT_SANDBOX_LIMITS, memoryMb: DEFAULT_SANDBOX_LIMITS.memoryMb + 16 };
    made.push(await spare.take(prelude, other));
    expect(spare.counts).toEqual({ served: 0, missed: 2 });
    await vi.waitFor(() => expect(spare.held).toBe(true), WAIT);
    made.push(await spare.take(prelude, other));
    expect(spare.counts).toEqual({ served: 1, missed: 2 });
    spare.dispose();
  });

  it('makes a spare once starts pause, gives it back after its idle time, and makes none once closed', async () => {
    const prelude = await loadPrelude(bundles.a as string);
    const spare = new IsolateSpare(handlers, 50);
    vi.useFakeTimers();
    try {
      made.push(await spare.take(prelude, DEFAULT_SANDBOX_LIMITS));
      expect(spare.held).toBe(false);
      vi.advanceTimersByTime(REFILL_AFTER_MS);
      expect(spare.held).toBe(true);
      vi.advanceTimersByTime(50);
      expect(spare.held).toBe(false);
      spare.dispose();
      made.push(await spare.take(prelude, DEFAULT_SANDBOX_LIMITS));
      vi.advanceTimersByTime(60_000);
      expect(spare.held).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('IsolateSpare under calls', () => {
  it('looks less and less often while one call runs on with nothing else coming', async () => {
    const prelude = await loadPrelude(bundles.a as string);
    const calls = { changes: 1, size: 1 };
    const spare = new IsolateSpare(handlers, 60_000, calls);
    await onFakeTimers(spare, async () => {
      made.push(await spare.take(prelude, DEFAULT_SANDBOX_LIMITS));
      // Looks after 10, then 20, 40, ... ms: 2,550 ms covers eight looks (the last waits 1 s).
      vi.advanceTimersByTime(2_550);
      expect(spare.held).toBe(false);
      // The call ends: seen at the next look, up to a second later, not 10 ms later.
      Object.assign(calls, { changes: 2, size: 0 });
      vi.advanceTimersByTime(2 * REFILL_AFTER_MS);
      expect(spare.held).toBe(false);
      vi.advanceTimersByTime(1_000 + REFILL_AFTER_MS);
      expect(spare.held).toBe(true);
    });
  });

  it('is told of every call that comes or ends by the running calls it watches', () => {
    const calls = new RunningCalls();
    calls.set('c1', handlers);
    calls.set('c2', handlers);
    calls.delete('c1');
    // Ending a call that is not running changes nothing.
    calls.delete('c1');
    expect({ size: calls.size, changes: calls.changes }).toEqual({ size: 1, changes: 3 });
    calls.clear();
    calls.clear();
    expect({ size: calls.size, changes: calls.changes }).toEqual({ size: 0, changes: 4 });
  });

  it('makes the next spare only once calls have paused too: none while one runs or one came or ended', async () => {
    const prelude = await loadPrelude(bundles.a as string);
    const calls = { changes: 1, size: 1 };
    const spare = new IsolateSpare(handlers, 60_000, calls);
    await onFakeTimers(spare, async () => {
      // A call's start takes an isolate; the call still runs when the quiet time has passed.
      made.push(await spare.take(prelude, DEFAULT_SANDBOX_LIMITS));
      vi.advanceTimersByTime(REFILL_AFTER_MS);
      expect(spare.held).toBe(false);
      // It ends, and the next call comes within the quiet time: still none.
      Object.assign(calls, { changes: 2, size: 0 });
      vi.advanceTimersByTime(REFILL_AFTER_MS);
      expect(spare.held).toBe(false);
      Object.assign(calls, { changes: 4, size: 0 });
      vi.advanceTimersByTime(REFILL_AFTER_MS);
      expect(spare.held).toBe(false);
      // A whole quiet time with no call: made.
      vi.advanceTimersByTime(REFILL_AFTER_MS);
      expect(spare.held).toBe(true);
    });
  });
});

describe('IsolateSpare made ahead', () => {
  it('makes none ahead when a start came while the prelude was being made, nor once disposed', async () => {
    const prelude = await loadPrelude(bundles.a as string);
    const spare = new IsolateSpare(handlers);
    const later = deferred<Prelude>();
    spare.ahead(() => later.promise, DEFAULT_SANDBOX_LIMITS);
    made.push(await spare.take(prelude, DEFAULT_SANDBOX_LIMITS));
    later.resolve(prelude);
    await later.promise;
    expect(spare.held).toBe(false);
    spare.dispose();

    const closed = new IsolateSpare(handlers);
    const pending = deferred<Prelude>();
    closed.ahead(() => pending.promise, DEFAULT_SANDBOX_LIMITS);
    closed.dispose();
    pending.resolve(prelude);
    await pending.promise;
    expect(closed.held).toBe(false);
  });

  it('keeps the spare made ahead past the idle time, until the first start takes it', async () => {
    const prelude = await loadPrelude(bundles.a as string);
    const spare = new IsolateSpare(handlers, 50);
    await onFakeTimers(spare, async () => {
      spare.ahead(async () => prelude, DEFAULT_SANDBOX_LIMITS);
      await vi.waitFor(() => expect(spare.held).toBe(true));
      // A spare made after a start is given back after 50 ms idle; this one is not.
      vi.advanceTimersByTime(60_000);
      expect(spare.held).toBe(true);
      made.push(await spare.take(prelude, DEFAULT_SANDBOX_LIMITS));
      expect(spare.counts).toEqual({ served: 1, missed: 0 });
      // Its replacement idles as any other.
      vi.advanceTimersByTime(REFILL_AFTER_MS);
      expect(spare.held).toBe(true);
      vi.advanceTimersByTime(50);
      expect(spare.held).toBe(false);
    });
  });
});

describe('IsolatePool with a spare', () => {
  it('describes one plugin after another in spares, each seeing nothing of the one before', async () => {
    const pool = new IsolatePool((bundle) => loadPrelude(bundle));
    try {
      const described: string[] = [];
      for (const id of ['a', 'b', 'c']) {
        if (id !== 'a') await vi.waitFor(() => expect(pool.spare.held).toBe(true), WAIT);
        const outcome = await pool.describe(bundles[id] as string, 'null', DEFAULT_SANDBOX_LIMITS);
        if (outcome.kind !== 'reply' || !outcome.reply.ok) throw new Error(JSON.stringify(outcome));
        described.push(outcome.reply.manifest.tools[0]?.description ?? '');
      }
      expect(described).toEqual(['found none', 'found none', 'found none']);
      expect(pool.spare.counts).toEqual({ served: 2, missed: 1 });
      // The spare is no plugin's isolate: it is not counted live.
      expect(pool.liveIsolates).toBe(0);
    } finally {
      pool.close();
    }
    expect(pool.spare.held).toBe(false);
  });

  it("makes a spare ahead as a fresh executor's pool is told of its first version, and the first call's start takes it", async () => {
    const pool = new IsolatePool((bundle) => loadPrelude(bundle));
    // As the executor process does with each version it is told (executor-main.ts).
    const tell = (key: string, bundle: string) => {
      pool.load(key, bundle, DEFAULT_SANDBOX_LIMITS);
      pool.spare.ahead(() => loadPrelude(bundle), DEFAULT_SANDBOX_LIMITS);
    };
    try {
      // A pool that is only told (an inline host's) makes none.
      pool.load('c@1', bundles.c as string, DEFAULT_SANDBOX_LIMITS);
      await loadPrelude(bundles.c as string);
      expect(pool.spare.held).toBe(false);
      tell('a@1', bundles.a as string);
      tell('b@1', bundles.b as string);
      // Made before any call, not counted live (no plugin's code is in it).
      await vi.waitFor(() => expect(pool.spare.held).toBe(true), WAIT);
      expect(pool.liveIsolates).toBe(0);
      const outcome = await pool.text(
        'call',
        'a@1',
        'a_t',
        'c1',
        JSON.stringify(callRequest(1, 'a_t', {})),
        handlers,
      );
      if (outcome.kind !== 'reply') throw new Error(outcome.message);
      expect(readReply(outcome.reply)).toMatchObject({ result: { content: [{ text: 'ok' }] } });
      expect(pool.spare.counts).toEqual({ served: 1, missed: 0 });
      expect(pool.liveIsolates).toBe(1);
    } finally {
      pool.close();
    }
  });

  it('makes no spare ahead for a version told after the pool has started isolates', async () => {
    const pool = new IsolatePool((bundle) => loadPrelude(bundle));
    try {
      const outcome = await pool.describe(bundles.a as string, 'null', DEFAULT_SANDBOX_LIMITS);
      expect(outcome.kind).toBe('reply');
      // The describe's start was the pool's first; its spare comes only once starts pause.
      pool.spare.dispose(false);
      pool.load('a@1', bundles.a as string, DEFAULT_SANDBOX_LIMITS);
      pool.spare.ahead(() => loadPrelude(bundles.a as string), DEFAULT_SANDBOX_LIMITS);
      // A spare made ahead would be made once the prelude is there, and before this resumes.
      await loadPrelude(bundles.a as string);
      expect(pool.spare.held).toBe(false);
      expect(pool.spare.counts).toEqual({ served: 0, missed: 1 });
    } finally {
      pool.close();
    }
  });
});
