import * as path from 'node:path';
import type { SandboxCrash } from '../../sandbox/types.js';
import { byCodeUnit } from '../../util/compare.js';
import { createIncrementalBundler, type IncrementalBundler } from './bundle.js';
import { PluginCache } from './cache.js';
import { discoverPlugins } from './discover.js';
import { type LoadPluginsOptions, loadPlugin, type PluginLoad } from './manager.js';
import { hiddenEntries } from './plugin-tools.js';
import { Quarantine } from './quarantine.js';

interface Entry {
  readonly entry: string;
  /** The plugin's folder: its build reads nothing of it outside this. */
  readonly dir: string;
  /** Created on the first rebuild; a first start served from the disk cache needs none. */
  bundler?: IncrementalBundler;
  load: PluginLoad;
}

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

/**
 * The plugins of a folder across reloads: one incremental esbuild context per plugin, so a saved
 * file is re-bundled from esbuild's cache, and the last load of each plugin, so a refresh that
 * concerns some plugins leaves the others exactly as they are.
 */
export class PluginSet {
  readonly #dir: string;
  readonly #cache: PluginCache | undefined;
  readonly #entries = new Map<string, Entry>();
  #problems: PluginLoad[] = [];
  readonly #quarantine: Quarantine;

  constructor(pluginsDir: string, root: string, useCache: boolean) {
    this.#dir = pluginsDir;
    this.#cache = useCache ? new PluginCache(path.join(root, '.toolhost', 'cache')) : undefined;
    this.#quarantine = new Quarantine(path.join(root, '.toolhost', 'quarantine.json'));
  }

  /**
   * Rediscovers the folder and reloads the plugins in `only` (every plugin when absent), plus any
   * that appeared; plugins that disappeared are dropped. Returns the loads of all plugins. No
   * plugin is unloaded from the sandbox here: a load's lease is released by whoever holds it
   * (the host, once no Map that holds its tools has calls in flight).
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
    const { plugins, problems } = await discoverPlugins(this.#dir);
    const present = new Set(plugins.map((p) => p.id));
    for (const [id, entry] of this.#entries) {
      if (present.has(id)) continue;
      this.#entries.delete(id);
      await entry.bundler?.dispose();
    }
    const quarantine = this.#quarantine;
    const loadOptions: LoadPluginsOptions = {
      ...options,
      blocked: (id, fingerprint) => quarantine.reason(id, fingerprint),
    };
    await Promise.all(
      plugins.map(async (plugin) => {
        let entry = this.#entries.get(plugin.id);
        if (entry !== undefined && entry.entry === plugin.entry && only !== undefined && !only.has(plugin.id))
          return;
        if (entry !== undefined && entry.entry !== plugin.entry) {
          await entry.bundler?.dispose();
          entry = undefined;
        }
        const fresh: Entry = entry ?? {
          entry: plugin.entry,
          dir: plugin.dir,
          load: undefined as unknown as PluginLoad,
        };
        const loaded = await loadPlugin(plugin, loadOptions, this.#cache, () =>
          this.#bundle(plugin.id, fresh),
        );
        fresh.load = keepToolNames(loaded, entry?.load);
        this.#entries.set(plugin.id, fresh);
      }),
    );
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
   * Charges an executor death to the plugin it names, if that is the version loaded now (a
   * replaced version's death says nothing about the current code). True when it starts the
   * plugin's quarantine: `loads()` has changed.
   */
  /** The version of `pluginId` loaded now (its lease), if it is loaded. */
  currentVersion(pluginId: string): number | undefined {
    return this.#entries.get(pluginId)?.load?.lease?.version;
  }

  recordCrash(crash: SandboxCrash): boolean {
    const load = this.#entries.get(crash.pluginId)?.load;
    if (load?.lease?.version !== crash.version || load.fingerprint === undefined) return false;
    return this.#quarantine.recordCrash(crash.pluginId, load.fingerprint, crash.message);
  }

  /**
   * The bundle of a plugin: on its first load the disk cache may answer (nothing changed since the
   * last start); otherwise its incremental esbuild context rebuilds, and the result is cached.
   */
  async #bundle(id: string, entry: Entry) {
    if (entry.bundler === undefined) {
      const cached = await this.#cache?.bundle(id, entry.entry, entry.dir);
      if (cached !== undefined) return { ok: true as const, code: cached };
      entry.bundler = await createIncrementalBundler(entry.entry, { root: entry.dir });
    }
    const outcome = await entry.bundler.rebuild();
    if (outcome.ok) await this.#cache?.storeBundle(id, entry.entry, outcome.code, outcome.inputs);
    return outcome;
  }

  #rawLoads(): PluginLoad[] {
    return [...[...this.#entries.values()].map((e) => e.load), ...this.#problems].sort((a, b) =>
      byCodeUnit(a.report.id, b.report.id),
    );
  }

  /** Every plugin's load, sorted by id, with quarantined plugins' tools hidden. */
  loads(): PluginLoad[] {
    return this.#quarantine.apply(this.#rawLoads());
  }

  async dispose(): Promise<void> {
    await this.#quarantine.flushed();
    await Promise.all([...this.#entries.values()].map((e) => e.bundler?.dispose()));
    this.#entries.clear();
  }
}
