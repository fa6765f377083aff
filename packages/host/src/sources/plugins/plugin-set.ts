import * as path from 'node:path';
import { byCodeUnit } from '../../util/compare.js';
import { messageOf } from '../../util/errors.js';
import { Limiter } from '../../util/limiter.js';
import { Turns } from '../../util/turns.js';
import { PluginBundles, type PluginBundlesOptions } from './bundles.js';
import { FileSurvey } from './cache.js';
import { cacheWrites } from './cache-files.js';
import { type DiscoveredPlugin, discoverPlugins } from './discover.js';
import { failedLoad, hiddenLoad, loadPlugin } from './load.js';
import { ManifestCache } from './manifest-cache.js';
import type { LoadPluginsOptions, PluginLoad } from './types.js';

/** A load started and not yet landed. */
interface Running {
  /** When it started, for "still loading (build running for 3 s)". */
  readonly since: number;
  phase: 'waiting to build' | 'build' | 'describe';
}

interface Entry {
  readonly entry: string;
  /** The plugin's folder: its build reads nothing of it outside this. */
  readonly dir: string;
  /** The last load that landed (none before the first one does). */
  load?: PluginLoad;
  running?: Running;
}

/** How the set paces its work; every field has a default measured on a 2-core machine. */
export interface PluginSetOptions extends Omit<PluginBundlesOptions, 'cacheDir'> {
  /** Describes at once: each one is an isolate holding the SDK and zod until it ends. */
  readonly describeSlots?: number;
  /**
   * How long a refresh waits, after a load has landed, for the next one before it publishes
   * without the loads still running (they land later on their own), ms.
   */
  readonly graceMs?: number;
  /** Told when a straggler landed after its refresh had returned: `loads()` has changed. */
  readonly onLanded?: (pluginId: string) => void;
  /** Plugins a pass starts between two turns of the event loop (`Turns`); default 16. */
  readonly pluginsPerTurn?: number;
}

/**
 * Describe isolates at once: the core count and one more. 100 plugins with cached bundles and no
 * cached manifests (describes alone), 2 cores, two rounds: 1 slot 2.5–2.7 s, 2: 2.3–3.1 s,
 * 3: 1.8–2.4 s, 4: 2.0–2.4 s, 8: 2.2–2.7 s, 100: 2.4–2.6 s; and each live one holds zod and the
 * SDK (≈ 6 MB).
 */
export const DEFAULT_DESCRIBE_SLOTS = 3;

/**
 * Plugins a pass starts between two turns of the event loop (`Turns`): on a warm pass, their cache
 * checks and cached manifests, a few ms in all.
 */
const DEFAULT_PLUGINS_PER_TURN = 16;

/**
 * A load that has not landed this long after the last other one did is a straggler: long enough
 * for a slow build among many on a busy machine (builds land every ~150 ms at 4 at once), short
 * against the 30 s build and 5 s describe limits a broken plugin runs into.
 */
export const DEFAULT_GRACE_MS = 1_500;

/**
 * A plugin that stops building cannot list its tools; its last good manifest can. Hiding each of
 * those tools with the build error tells a person which tools went and why.
 */
function keepToolNames(load: PluginLoad, previous: PluginLoad | undefined): PluginLoad {
  const manifest = previous?.report.manifest;
  if (load.report.status !== 'failed' || load.report.manifest !== undefined || manifest === undefined)
    return load;
  const listed = load.source.unavailable?.some((entry) => !entry.descriptor.name.startsWith('plugin:'));
  if (listed === true) return load;
  return failedLoad(load.report.id, load.report.diagnostics.join('; '), manifest.tools, manifest);
}

/** A straggler's stand-in while its first load runs: hidden, saying what it waits for. */
function stillLoading(
  id: string,
  running: Running,
  previous: PluginLoad | undefined,
  now: number,
): PluginLoad {
  const seconds = Math.max(0, Math.round((now - running.since) / 1000));
  const doing = running.phase === 'waiting to build' ? 'waiting to build' : `${running.phase} running`;
  const message = `plugin "${id}" is still loading (${doing} for ${seconds} s); its tools appear when it finishes`;
  // A new version still loading: the version loaded before serves meanwhile, and says so.
  if (previous !== undefined)
    return {
      ...previous,
      report: { ...previous.report, diagnostics: [...previous.report.diagnostics, message] },
    };
  return hiddenLoad(id, 'loading', message);
}

/**
 * The plugins of a folder across reloads, and the last load of each, so that a refresh that
 * concerns some plugins leaves the others exactly as they are.
 *
 * A pass bundles each plugin (`bundles.ts`: cache, a few builds at a time, incremental contexts
 * for plugins the watcher saw change), describes with a few isolates at a time (`load.ts`), and
 * publishes what is ready: a plugin whose build or describe lags far behind the others does not
 * hold their tools back; it lands on its own later (`onLanded`). The set knows nothing of
 * quarantine: the source lays it over the loads (`source.ts`).
 */
export class PluginSet {
  readonly #dir: string;
  readonly #bundles: PluginBundles;
  readonly #manifests: ManifestCache | undefined;
  readonly #entries = new Map<string, Entry>();
  #problems: PluginLoad[] = [];
  readonly #describes: Limiter;
  readonly #graceMs: number;
  readonly #pluginsPerTurn: number;
  readonly #onLanded: (pluginId: string) => void;
  /** True while a refresh waits for its loads: a landing then is part of that refresh. */
  #refreshing = false;
  #closed = false;

  /** `root`: the project, whose `.toolhost/cache/` holds bundles and manifests when `useCache`. */
  constructor(pluginsDir: string, root: string, useCache: boolean, options: PluginSetOptions = {}) {
    this.#dir = pluginsDir;
    const cacheDir = path.join(root, '.toolhost', 'cache');
    this.#bundles = new PluginBundles({ ...options, ...(useCache ? { cacheDir } : {}) });
    this.#manifests = useCache ? new ManifestCache(cacheDir) : undefined;
    this.#describes = new Limiter(options.describeSlots ?? DEFAULT_DESCRIBE_SLOTS);
    this.#graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
    this.#pluginsPerTurn = options.pluginsPerTurn ?? DEFAULT_PLUGINS_PER_TURN;
    this.#onLanded = options.onLanded ?? (() => undefined);
  }

  /**
   * Rediscovers the folder and reloads the plugins in `only` (every plugin when absent), plus any
   * that appeared; plugins that disappeared are dropped. Returns the loads of all plugins, with
   * stragglers (see the class) shown as still loading. No plugin is unloaded from the sandbox
   * here: a load's lease is released by whoever holds it (the host, once no Map that holds its
   * tools has calls in flight).
   *
   * `only` comes from the watcher: those plugins' files changed, so they are rebuilt through an
   * incremental context, kept for their next save.
   */
  async refresh(options: LoadPluginsOptions, only?: ReadonlySet<string>): Promise<PluginLoad[]> {
    const known = new Map<string, DiscoveredPlugin>();
    for (const [id, entry] of this.#entries) known.set(id, { id, dir: entry.dir, entry: entry.entry });
    const { plugins, problems } = await discoverPlugins(
      this.#dir,
      only === undefined ? undefined : { known, only },
    );
    const present = new Set(plugins.map((p) => p.id));
    for (const id of this.#entries.keys()) {
      if (present.has(id)) continue;
      this.#entries.delete(id);
      this.#bundles.drop(id);
    }
    const describes = this.#describes;
    const loadOptions: LoadPluginsOptions = { ...options, limitDescribe: (task) => describes.run(task) };
    // One pass over the disk for the cache: the SDK's and zod's files are looked at once.
    const survey = new FileSurvey();
    const turns = new Turns(this.#pluginsPerTurn);
    const started: Promise<void>[] = [];
    for (const plugin of plugins) {
      let entry = this.#entries.get(plugin.id);
      if (entry !== undefined && entry.entry === plugin.entry && only !== undefined && !only.has(plugin.id))
        continue;
      if (entry !== undefined && entry.entry !== plugin.entry) {
        this.#bundles.drop(plugin.id);
        entry = {
          entry: plugin.entry,
          dir: plugin.dir,
          ...(entry.load === undefined ? {} : { load: entry.load }),
        };
      }
      entry ??= { entry: plugin.entry, dir: plugin.dir };
      this.#entries.set(plugin.id, entry);
      started.push(this.#start(plugin, entry, loadOptions, only?.has(plugin.id) === true, survey, turns));
    }
    this.#refreshing = true;
    try {
      await this.#landedOrStalled(started);
    } finally {
      this.#refreshing = false;
    }
    this.#problems = problems.map((problem) =>
      failedLoad(problem.id, `plugins/${problem.id}: ${problem.message}`),
    );
    return this.loads();
  }

  /**
   * Resolves once every load has landed, or once `graceMs` passed after a landing with no other
   * landing: the loads left then are stragglers. Before the first landing there is nothing to
   * publish early, and a lone load is waited for (nothing else waits on it).
   */
  #landedOrStalled(loads: readonly Promise<void>[]): Promise<void> {
    if (loads.length <= 1) return Promise.all(loads).then(() => undefined);
    return new Promise((resolve) => {
      let left = loads.length;
      let timer: NodeJS.Timeout | undefined;
      const finish = () => {
        clearTimeout(timer);
        resolve();
      };
      for (const load of loads) {
        void load.then(() => {
          left -= 1;
          clearTimeout(timer);
          if (left === 0) finish();
          else timer = setTimeout(finish, this.#graceMs);
        });
      }
    });
  }

  /** Starts loading `plugin`; the promise settles when the load has landed (never rejects). */
  #start(
    plugin: DiscoveredPlugin,
    entry: Entry,
    options: LoadPluginsOptions,
    watched: boolean,
    survey: FileSurvey,
    turns: Turns,
  ): Promise<void> {
    const running: Running = { since: Date.now(), phase: 'waiting to build' };
    entry.running = running;
    const building = () => {
      running.phase = 'build';
      // Its describe comes next: the sandbox gets ready while it builds (a cached bundle never
      // gets here, so a warm start still starts no executor).
      options.sandbox.warm?.();
    };
    return turns
      .next()
      .then(() => this.#bundles.bundle(plugin, watched, survey, building))
      .then(
        (bundled) => {
          running.phase = 'describe';
          return loadPlugin(plugin.id, bundled, options, this.#manifests);
        },
        (error: unknown) =>
          failedLoad(plugin.id, `plugin "${plugin.id}" failed to load: ${messageOf(error)}`),
      )
      .then((loaded) => {
        // A newer load of the plugin started meanwhile, or the plugin went: this one is never published.
        if (entry.running !== running || this.#entries.get(plugin.id) !== entry || this.#closed) {
          loaded.lease?.release();
          return;
        }
        entry.running = undefined;
        entry.load = keepToolNames(loaded, entry.load);
        if (!this.#refreshing) this.#onLanded(plugin.id);
      });
  }

  /** How many plugins hold an incremental esbuild context now. */
  /** A file of plugin `id` changed; its next pass is coming (see `PluginBundles.touched`). */
  touched(id: string): void {
    this.#bundles.touched(id);
  }

  get contexts(): number {
    return this.#bundles.contexts;
  }

  /** The load of `pluginId` in force (landed), if it has one. */
  current(pluginId: string): PluginLoad | undefined {
    return this.#entries.get(pluginId)?.load;
  }

  /** Every plugin's load, sorted by id; a straggler shown as still loading. */
  loads(): PluginLoad[] {
    const now = Date.now();
    const loads: PluginLoad[] = [...this.#problems];
    for (const [id, entry] of this.#entries) {
      if (entry.running !== undefined) loads.push(stillLoading(id, entry.running, entry.load, now));
      else if (entry.load !== undefined) loads.push(entry.load);
    }
    return loads.sort((a, b) => byCodeUnit(a.report.id, b.report.id));
  }

  dispose(): void {
    this.#closed = true;
    this.#bundles.dispose();
    this.#entries.clear();
    // What this host's caches still hold is on disk when it is closed (cache-files.ts).
    cacheWrites.flush();
  }
}
