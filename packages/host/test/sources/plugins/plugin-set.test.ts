import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Sandbox } from '../../../src/sandbox/types.js';
import { BuildService } from '../../../src/sources/plugins/build-service.js';
import { cacheWrites } from '../../../src/sources/plugins/cache-files.js';
import { PluginSet, type PluginSetOptions } from '../../../src/sources/plugins/plugin-set.js';
import type { PluginLoad } from '../../../src/sources/plugins/types.js';
import { pluginProject, pluginSource } from './plugin-fixtures.js';

const DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../dist/sources/plugins');

/**
 * A build worker that builds for real, except plugins whose folder is named `hangs`: their build
 * is held until a file `go` appears beside the script (a build stuck in esbuild, as far as the
 * host can tell).
 */
const HOLDING_WORKER = `import { existsSync, watch } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { PluginBuild } from ${JSON.stringify(pathToFileURL(path.join(DIST, 'build-context.js')).href)};
const go = new URL('./go', import.meta.url);
const held = [];
const build = (m) =>
  new PluginBuild(m.entry, m.root, m.limits).rebuild().then((outcome) => parentPort.postMessage({ t: 'built', id: m.id, outcome }));
watch(new URL('./', import.meta.url), () => {
  if (existsSync(go)) for (const m of held.splice(0)) build(m);
});
parentPort.on('message', (m) => {
  if (m.t !== 'build') return;
  if (m.entry.includes('/hangs/') && !existsSync(go)) held.push(m);
  else build(m);
});
`;

const byId = (loads: readonly PluginLoad[]) => Object.fromEntries(loads.map((l) => [l.report.id, l]));
const toolNames = (load: PluginLoad | undefined) => load?.source.tools.map((t) => t.descriptor.name) ?? [];

describe('a plugin set', () => {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    vi.useRealTimers();
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  const project = (plugins: Record<string, string>) => pluginProject(plugins, cleanups);

  function setOf(dir: string, root: string, cache: boolean, options: PluginSetOptions = {}) {
    const set = new PluginSet(dir, root, cache, options);
    cleanups.push(async () => {
      for (const load of set.loads()) load.lease?.release();
      await set.dispose();
    });
    return set;
  }

  /** A promise of the next `onLanded` for `id`, and the option that reports it. */
  function landing(id: string) {
    let resolve: () => void = () => undefined;
    const landed = new Promise<void>((r) => {
      resolve = r;
    });
    return { landed, onLanded: (landedId: string) => landedId === id && resolve() };
  }

  it('writes its caches behind the loads, and has them on disk once disposed', async () => {
    const { root, dir, sandbox } = await project({ one: pluginSource('one'), two: pluginSource('two') });
    const cache = path.join(root, '.toolhost', 'cache');
    // What each write left on disk when the load went on: its file only queued, never written on
    // the load's path. (Whether the quiet spell passes between two loads, and the queue drains
    // meanwhile, is the machine's timing: not asserted.)
    const queued: string[] = [];
    const write = cacheWrites.write.bind(cacheWrites);
    const spy = vi.spyOn(cacheWrites, 'write').mockImplementation((file, data, where) => {
      write(file, data, where);
      queued.push(`${path.relative(cache, file)}: ${existsSync(file) ? 'on disk' : 'queued'}`);
    });
    const set = new PluginSet(dir, root, true);
    let loads: PluginLoad[];
    try {
      loads = await set.refresh({ root, sandbox });
    } finally {
      spy.mockRestore();
    }
    expect(loads.map((l) => l.report.status)).toEqual(['loaded', 'loaded']);
    // Two bundles, their indexes and two manifests, each queued.
    expect(queued).toHaveLength(6);
    expect(queued.filter((entry) => entry.endsWith(': queued'))).toEqual(queued);
    for (const load of set.loads()) load.lease?.release();
    set.dispose();
    expect(cacheWrites.size).toBe(0);
    expect(
      readdirSync(path.join(cache, 'bundles'))
        .filter((f) => f.endsWith('.json'))
        .sort(),
    ).toEqual(['one.json', 'two.json']);
    expect(readdirSync(path.join(cache, 'manifests'))).toHaveLength(2);
  });

  it("publishes a healthy plugin's tools while an unrelated plugin's build hangs; the straggler lands on its own later", async () => {
    const { root, dir, sandbox } = await project({
      good: pluginSource('good'),
      hangs: pluginSource('hangs'),
    });
    const workerDir = await mkdtemp(path.join(tmpdir(), 'toolhost-holding-worker-'));
    cleanups.push(() => rm(workerDir, { recursive: true, force: true }));
    await writeFile(path.join(workerDir, 'worker.mjs'), HOLDING_WORKER);
    const service = new BuildService(path.join(workerDir, 'worker.mjs'));
    cleanups.push(() => service.close());
    const { landed, onLanded } = landing('hangs');
    const set = setOf(dir, root, false, { buildService: service, graceMs: 50, onLanded });

    const loads = byId(await set.refresh({ root, sandbox }));
    expect(loads.good?.report.status).toBe('loaded');
    expect(toolNames(loads.good)).toEqual(['good_tool']);
    expect(loads.hangs?.report.status).toBe('loading');
    expect(loads.hangs?.report.diagnostics[0]).toMatch(
      /^plugin "hangs" is still loading \(build running for \d+ s\); its tools appear when it finishes$/,
    );
    expect(loads.hangs?.source.unavailable?.[0]?.diagnostics[0]?.reason).toBe('plugin-load-failed');

    await writeFile(path.join(workerDir, 'go'), '');
    await landed;
    const after = byId(set.loads());
    expect(toolNames(after.hangs)).toEqual(['hangs_tool']);
    expect(toolNames(after.good)).toEqual(['good_tool']);
  });

  it("publishes a healthy plugin's tools while another plugin's describe spins", async () => {
    const { root, dir, sandbox } = await project({
      good: pluginSource('good'),
      spins: pluginSource('spins', 'for (;;) {}'),
    });
    const { landed, onLanded } = landing('spins');
    const set = setOf(dir, root, false, { graceMs: 50, onLanded });
    const options = { root, sandbox, settings: { spins: { limits: { timeoutMs: 2_000 } } } };

    const loads = byId(await set.refresh(options));
    expect(toolNames(loads.good)).toEqual(['good_tool']);
    expect(loads.spins?.report.status).toBe('loading');
    expect(loads.spins?.report.diagnostics[0]).toMatch(
      /still loading \((build|describe) running for \d+ s\)/,
    );

    await landed;
    const spins = byId(set.loads()).spins;
    expect(spins?.report.status).toBe('failed');
    // Two clocks of timeoutMs end a spinning describe: isolated-vm's entry timeout and the
    // guard's deadline. Either may fire first on a loaded machine; each names the time limit.
    expect(spins?.report.diagnostics[0]).toMatch(
      /^plugin "spins" failed to load: (?:Script execution timed out|.*time limit \(timeoutMs: 2000\))/,
    );
  });

  it('keeps at most `describeSlots` describe isolates alive at once', async () => {
    const ids = ['p1', 'p2', 'p3', 'p4', 'p5', 'p6'];
    const { root, dir, sandbox } = await project(Object.fromEntries(ids.map((id) => [id, pluginSource(id)])));
    // A first pass fills the bundle cache, so that the pass measured gets every bundle at once.
    await setOf(dir, root, true).refresh({ root, sandbox });
    // On disk (they are written behind), then gone: every plugin is described again.
    cacheWrites.flush();
    await rm(path.join(root, '.toolhost', 'cache', 'manifests'), { recursive: true, force: true });

    let live = 0;
    let most = 0;
    const counting = new Proxy(sandbox, {
      get(target, property) {
        if (property === 'describe')
          return async (...args: Parameters<Sandbox['describe']>) => {
            live += 1;
            most = Math.max(most, live);
            try {
              // Let every other load that is ready reach its describe before this one ends.
              await new Promise((resolve) => setImmediate(resolve));
              return await target.describe(...args);
            } finally {
              live -= 1;
            }
          };
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const loads = await setOf(dir, root, true, { describeSlots: 2 }).refresh({ root, sandbox: counting });
    expect(loads.map((l) => l.report.status)).toEqual(ids.map(() => 'loaded'));
    expect(most).toBe(2);
  });

  it('tells the sandbox to get ready as each build starts, before its describe, and never on a cached start', async () => {
    const ids = ['w1', 'w2', 'w3'];
    const { root, dir, sandbox } = await project(Object.fromEntries(ids.map((id) => [id, pluginSource(id)])));
    const events: string[] = [];
    const recording = new Proxy(sandbox, {
      get(target, property) {
        if (property === 'warm') return () => events.push('warm');
        if (property === 'describe')
          return (...args: Parameters<Sandbox['describe']>) => {
            events.push('describe');
            return target.describe(...args);
          };
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const cold = await setOf(dir, root, true).refresh({ root, sandbox: recording });
    expect(cold.map((l) => l.report.status)).toEqual(ids.map(() => 'loaded'));
    expect(events.filter((e) => e === 'warm')).toHaveLength(ids.length);
    expect(events.filter((e) => e === 'describe')).toHaveLength(ids.length);
    // Each describe has had its warning: the n-th describe comes after the n-th warm.
    let warms = 0;
    let describes = 0;
    for (const event of events) {
      if (event === 'warm') warms += 1;
      else describes += 1;
      expect(describes).toBeLessThanOrEqual(warms);
    }

    events.length = 0;
    const warm = await setOf(dir, root, true).refresh({ root, sandbox: recording });
    expect(warm.map((l) => l.report.status)).toEqual(ids.map(() => 'loaded'));
    expect(events).toEqual([]);
  });

  it('a warm pass gives the event loop a turn every `pluginsPerTurn` plugins', async () => {
    const ids = ['p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7', 'p8', 'p9'];
    const { root, dir, sandbox } = await project(Object.fromEntries(ids.map((id) => [id, pluginSource(id)])));
    // Old files: the cache trusts their stat, so the pass measured does no I/O of its own to wait on.
    const hourAgo = new Date(Date.now() - 3_600_000);
    for (const id of ids) await utimes(path.join(dir, id, 'index.ts'), hourAgo, hourAgo);
    await setOf(dir, root, true).refresh({ root, sandbox });

    // Turns of the event loop, counted by an immediate that schedules the next one.
    let turn = 0;
    let counting = true;
    const tick = () => {
      turn += 1;
      if (counting) setImmediate(tick);
    };
    const turnOfLoad: number[] = [];
    const recording = new Proxy(sandbox, {
      get(target, property) {
        if (property === 'load')
          return (...args: Parameters<Sandbox['load']>) => {
            turnOfLoad.push(turn);
            return target.load(...args);
          };
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const set = setOf(dir, root, true, { pluginsPerTurn: 4 });
    const refreshed = set.refresh({ root, sandbox: recording });
    setImmediate(tick);
    const loads = await refreshed;
    counting = false;
    expect(loads.map((l) => l.report.status)).toEqual(ids.map(() => 'loaded'));
    const perTurn = new Map<number, number>();
    for (const t of turnOfLoad) perTurn.set(t, (perTurn.get(t) ?? 0) + 1);
    // 9 plugins, 4 a turn: three turns at least, never more than 4 plugins in one.
    expect(perTurn.size).toBeGreaterThanOrEqual(3);
    expect(Math.max(...perTurn.values())).toBeLessThanOrEqual(4);
  });

  it('creates an incremental context only for a plugin the watcher saw change, and drops it when idle', async () => {
    const { root, dir, sandbox } = await project({ p: pluginSource('p') });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const set = setOf(dir, root, false, { idleMs: 60_000 });
    const options = { root, sandbox };

    await set.refresh(options);
    expect(set.contexts).toBe(0);
    await set.refresh(options, new Set(['p']));
    expect(set.contexts).toBe(1);
    // A settings change rebuilds every plugin: the context is used, not a one-shot build beside it.
    await set.refresh(options);
    expect(set.contexts).toBe(1);

    vi.advanceTimersByTime(59_000);
    expect(set.contexts).toBe(1);
    vi.advanceTimersByTime(1_000);
    expect(set.contexts).toBe(0);
  });

  it('on a save rebuilds and describes only the changed plugin, and looks into no other folder', async () => {
    const { root, dir, sandbox } = await project({
      a: pluginSource('a'),
      b: pluginSource('b'),
      c: pluginSource('c'),
    });
    const described: string[] = [];
    const counting = new Proxy(sandbox, {
      get(target, property) {
        if (property === 'describe')
          return (...args: Parameters<Sandbox['describe']>) => {
            described.push(/"(\w+)_tool"/.exec(args[0])?.[1] ?? '?');
            return target.describe(...args);
          };
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const set = setOf(dir, root, false);
    const before = byId(await set.refresh({ root, sandbox: counting }));
    expect(described.sort()).toEqual(['a', 'b', 'c']);
    described.length = 0;
    // Were folder `c` looked into, its missing entry would drop it.
    await rm(path.join(dir, 'c', 'index.ts'));
    await writeFile(path.join(dir, 'a', 'index.ts'), pluginSource('a', '// saved'));
    const after = byId(await set.refresh({ root, sandbox: counting }, new Set(['a'])));
    expect(described).toEqual(['a']);
    expect(after.b).toBe(before.b);
    expect(after.c).toBe(before.c);
    expect(after.a).not.toBe(before.a);
  });
});
