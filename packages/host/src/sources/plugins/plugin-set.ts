import * as path from 'node:path';
import type { SandboxCrash } from '../../sandbox/types.js';
import { byCodeUnit } from '../../util/compare.js';
import { Limiter } from '../../util/limiter.js';
import type { BuildService } from './build-service.js';
import {
  type BundleOptions,
  bundlePlugin,
  createIncrementalBundler,
  type IncrementalBundler,
} from './bundle.js';
import { FileSurvey, PluginCache } from './cache.js';
import { type DiscoveredPlugin, discoverPlugins } from './discover.js';
import { type LoadPluginsOptions, loadPlugin, type PluginLoad } from './manager.js';
import { hiddenEntries } from './plugin-tools.js';
import { Quarantine } from './quarantine.js';

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
  /**
   * Created only once the watcher has seen the plugin's files change, so that saves are rebuilt
   * from esbuild's cache; a first load, a settings change or a reload builds once and keeps nothing.
   */
  bundler?: IncrementalBundler;
  /** Drops the context after a while without rebuilds. */
  idle?: NodeJS.Timeout;
  /** The last load that landed (none before the first one does). */
  load?: PluginLoad;
  running?: Running;
}

/** How the set paces its work; every field has a default measured on a 2-core machine. */
export interface PluginSetOptions {
  /** Builds sent to the build worker at once (esbuild is itself parallel inside each). */
  readonly buildSlots?: number;
  /** Describes at once: each one is an isolate holding the SDK and zod until it ends. */
  readonly describeSlots?: number;
  /** How long a plugin's incremental esbuild context is kept without a rebuild, ms. */
  readonly idleMs?: number;
  /**
   * How long a refresh waits, after a load has landed, for the next one before it publishes
   * without the loads still running (they land later on their own), ms.
   */
  readonly graceMs?: number;
  /** Where builds run; default the process's shared build worker (tests give their own). */
  readonly buildService?: BuildService;
  /** Told when a straggler landed after its refresh had returned: `loads()` has changed. */
  readonly onLanded?: (pluginId: string) => void;
}

/**
 * Builds at once. 100 plugins, one-shot builds alone, 2 cores: 1 slot 19.0 s, 2: 15.4–15.9 s,
 * 4: 11.8–15.3 s, 8: 13.4–13.7 s; esbuild's service keeps ≈ 17–35 MB per build that ran at once
 * (100 at once: 1.8 GB; 4: 130–145 MB).
 */
export const DEFAULT_BUILD_SLOTS = 4;
/**
 * Describe isolates at once: the core count and one more. 100 plugins with cached bundles and no
 * cached manifests (describes alone), 2 cores, two rounds: 1 slot 2.5–2.7 s, 2: 2.3–3.1 s,
 * 3: 1.8–2.4 s, 4: 2.0–2.4 s, 8: 2.2–2.7 s, 100: 2.4–2.6 s; and each live one holds zod and the
 * SDK (≈ 6 MB).
 */
export const DEFAULT_DESCRIBE_SLOTS = 3;
/** A context kept between saves; a plugin not saved for a minute gives its memory back. */
export const DEFAULT_IDLE_MS = 60_000;
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
  const message = load.report.diagnostics.join('; ');
  return {
    source: {
      ...load.source,
      unavailable: hiddenEntries(load.report.id, manifest.tools, 'plugin-load-failed', message),
    },
    report: { ...load.report, manifest },
  };
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
  return {
    source: {
      kind: 'plugin',
      id,
      tools: [],
      unavailable: hiddenEntries(id, undefined, 'plugin-load-failed', message),
    },
    report: { id, status: 'loading', diagnostics: [message] },
  };
}

/**
 * The plugins of a folder across reloads, and the last load of each, so that a refresh that
 * concerns some plugins leaves the others exactly as they are.
 *
 * A pass builds each plugin once (esbuild context created and disposed) with a few builds at a
 * time, describes with a few isolates at a time, and publishes what is ready: a plugin whose build
 * or describe lags far behind the others does not hold their tools back; it lands on its own later
 * (`onLanded`). A plugin the watcher saw change gets an incremental esbuild context, dropped when
 * it has not been rebuilt for a while, so the memory esbuild holds does not grow with the number
 * of plugins.
 */
export class PluginSet {
  readonly #dir: string;
  readonly #cache: PluginCache | undefined;
  readonly #entries = new Map<string, Entry>();
  #problems: PluginLoad[] = [];
  readonly #quarantine: Quarantine;
  readonly #builds: Limiter;
  readonly #describes: Limiter;
  readonly #idleMs: number;
  readonly #graceMs: number;
  readonly #onLanded: (pluginId: string) => void;
  readonly #bundleOptions: (dir: string) => BundleOptions;
  /** True while a refresh waits for its loads: a landing then is part of that refresh. */
  #refreshing = false;
  #closed = false;

  constructor(pluginsDir: string, root: string, useCache: boolean, options: PluginSetOptions = {}) {
    this.#dir = pluginsDir;
    this.#cache = useCache ? new PluginCache(path.join(root, '.toolhost', 'cache')) : undefined;
    this.#quarantine = new Quarantine(path.join(root, '.toolhost', 'quarantine.json'));
    this.#builds = new Limiter(options.buildSlots ?? DEFAULT_BUILD_SLOTS);
    this.#describes = new Limiter(options.describeSlots ?? DEFAULT_DESCRIBE_SLOTS);
    this.#idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
    this.#graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
    this.#onLanded = options.onLanded ?? (() => undefined);
    const service = options.buildService;
    this.#bundleOptions = (root) => (service === undefined ? { root } : { root, service });
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
   *
   * A quarantine is lifted for a plugin that changed or went, and with `liftQuarantine` (an
   * operator's reload) for every plugin.
   */
  async refresh(
    options: LoadPluginsOptions,
    only?: ReadonlySet<string>,
    { liftQuarantine = false }: { liftQuarantine?: boolean } = {},
  ): Promise<PluginLoad[]> {
    await this.#quarantine.open();
    const known = new Map<string, DiscoveredPlugin>();
    for (const [id, entry] of this.#entries) known.set(id, { id, dir: entry.dir, entry: entry.entry });
    const { plugins, problems } = await discoverPlugins(
      this.#dir,
      only === undefined ? undefined : { known, only },
    );
    const present = new Set(plugins.map((p) => p.id));
    for (const [id, entry] of this.#entries) {
      if (present.has(id)) continue;
      this.#entries.delete(id);
      this.#dropContext(entry);
    }
    const quarantine = this.#quarantine;
    const describes = this.#describes;
    const loadOptions: LoadPluginsOptions = {
      ...options,
      blocked: (id, fingerprint) => quarantine.reason(id, fingerprint),
      limitDescribe: (task) => describes.run(task),
    };
    // One pass over the disk for the cache: the SDK's and zod's files are looked at once.
    const survey = new FileSurvey();
    const started: Promise<void>[] = [];
    for (const plugin of plugins) {
      let entry = this.#entries.get(plugin.id);
      if (entry !== undefined && entry.entry === plugin.entry && only !== undefined && !only.has(plugin.id))
        continue;
      if (entry !== undefined && entry.entry !== plugin.entry) {
        this.#dropContext(entry);
        entry = {
          entry: plugin.entry,
          dir: plugin.dir,
          ...(entry.load === undefined ? {} : { load: entry.load }),
        };
      }
      entry ??= { entry: plugin.entry, dir: plugin.dir };
      this.#entries.set(plugin.id, entry);
      started.push(this.#start(plugin, entry, loadOptions, only?.has(plugin.id) === true, survey));
    }
    this.#refreshing = true;
    try {
      await this.#landedOrStalled(started);
    } finally {
      this.#refreshing = false;
    }
    this.#problems = problems.map((problem) => {
      const message = `plugins/${problem.id}: ${problem.message}`;
      return {
        source: {
          kind: 'plugin',
          id: problem.id,
          tools: [],
          unavailable: hiddenEntries(problem.id, undefined, 'plugin-load-failed', message),
        },
        report: { id: problem.id, status: 'failed', diagnostics: [message] },
      };
    });
    this.#quarantine.lift(this.#rawLoads(), liftQuarantine);
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
  ): Promise<void> {
    const running: Running = { since: Date.now(), phase: 'waiting to build' };
    entry.running = running;
    const bundle = async () => {
      const outcome = await this.#bundle(plugin.id, entry, running, watched, survey);
      running.phase = 'describe';
      return outcome;
    };
    return loadPlugin(plugin, options, this.#cache, bundle).then((loaded) => {
      // A newer load of the plugin started meanwhile, or the plugin went: this one is never published.
      if (entry.running !== running || this.#entries.get(plugin.id) !== entry || this.#closed) {
        loaded.lease?.release();
        return;
      }
      entry.running = undefined;
      entry.load = keepToolNames(loaded, entry.load);
      if (this.#refreshing) return;
      this.#quarantine.lift(this.#rawLoads(), false);
      this.#onLanded(plugin.id);
    });
  }

  /**
   * The bundle of a plugin. Its incremental context, when the watcher saw it change (created on
   * the first such change); else the disk cache if nothing changed since it was stored, else a
   * one-shot build. A build that succeeds is cached.
   */
  async #bundle(id: string, entry: Entry, running: Running, watched: boolean, survey: FileSurvey) {
    if (entry.bundler === undefined && !watched) {
      const cached = await this.#cache?.bundle(id, entry.entry, entry.dir, survey);
      if (cached !== undefined) return { ok: true as const, code: cached };
    }
    const outcome = await this.#builds.run(async () => {
      running.phase = 'build';
      if (entry.bundler === undefined && !watched)
        return bundlePlugin(entry.entry, this.#bundleOptions(entry.dir));
      entry.bundler ??= createIncrementalBundler(entry.entry, this.#bundleOptions(entry.dir));
      const result = await entry.bundler.rebuild();
      this.#keepContext(entry);
      return result;
    });
    if (outcome.ok) await this.#cache?.storeBundle(id, entry.entry, outcome.code, outcome.inputs);
    return outcome;
  }

  /** (Re)starts the idle timer of an entry's context. */
  #keepContext(entry: Entry): void {
    clearTimeout(entry.idle);
    entry.idle = setTimeout(() => this.#dropContext(entry), this.#idleMs);
    // An idle context must not keep the host process alive.
    entry.idle.unref();
  }

  #dropContext(entry: Entry): void {
    clearTimeout(entry.idle);
    entry.idle = undefined;
    const bundler = entry.bundler;
    entry.bundler = undefined;
    bundler?.dispose();
  }

  /** How many plugins hold an incremental esbuild context now. */
  get contexts(): number {
    let count = 0;
    for (const entry of this.#entries.values()) if (entry.bundler !== undefined) count += 1;
    return count;
  }

  /**
   * Charges an executor death to the plugin it names, if that is the version loaded now (a
   * replaced version's death says nothing about the current code). True when it starts the
   * plugin's quarantine: `loads()` has changed.
   */
  recordCrash(crash: SandboxCrash): boolean {
    const load = this.#entries.get(crash.pluginId)?.load;
    if (load?.lease?.version !== crash.version || load.fingerprint === undefined) return false;
    return this.#quarantine.recordCrash(crash.pluginId, load.fingerprint, crash.message);
  }

  /** The version of `pluginId` loaded now (its lease), if it is loaded. */
  currentVersion(pluginId: string): number | undefined {
    return this.#entries.get(pluginId)?.load?.lease?.version;
  }

  #rawLoads(): PluginLoad[] {
    const now = Date.now();
    const loads: PluginLoad[] = [...this.#problems];
    for (const [id, entry] of this.#entries) {
      if (entry.running !== undefined) loads.push(stillLoading(id, entry.running, entry.load, now));
      else if (entry.load !== undefined) loads.push(entry.load);
    }
    return loads.sort((a, b) => byCodeUnit(a.report.id, b.report.id));
  }

  /** Every plugin's load, sorted by id, with quarantined plugins' tools hidden. */
  loads(): PluginLoad[] {
    return this.#quarantine.apply(this.#rawLoads());
  }

  async dispose(): Promise<void> {
    this.#closed = true;
    await this.#quarantine.flushed();
    for (const entry of this.#entries.values()) this.#dropContext(entry);
    this.#entries.clear();
  }
}
