import { Limiter } from '../../util/limiter.js';
import type { BuildService } from './build-service.js';
import {
  type BundleOptions,
  type BundleOutcome,
  bundlePlugin,
  createIncrementalBundler,
  type IncrementalBundler,
} from './bundle.js';
import { BundleCache, type FileSurvey } from './cache.js';
import type { DiscoveredPlugin } from './discover.js';

/** How bundles are made; every field has a default measured on a 2-core machine. */
export interface PluginBundlesOptions {
  /** The bundle cache's folder (`.toolhost/cache`); none: every bundle is built. */
  readonly cacheDir?: string;
  /** Builds sent to the build worker at once (esbuild is itself parallel inside each). */
  readonly buildSlots?: number;
  /** How long a plugin's incremental esbuild context is kept without a rebuild, ms. */
  readonly idleMs?: number;
  /** Where builds run; default the process's shared build worker (tests give their own). */
  readonly buildService?: BuildService;
}

/**
 * Builds at once. 100 plugins, one-shot builds alone, 2 cores: 1 slot 19.0 s, 2: 15.4–15.9 s,
 * 4: 11.8–15.3 s, 8: 13.4–13.7 s; esbuild's service keeps ≈ 17–35 MB per build that ran at once
 * (100 at once: 1.8 GB; 4: 130–145 MB).
 */
export const DEFAULT_BUILD_SLOTS = 4;
/** A context kept between saves; a plugin not saved for a minute gives its memory back. */
export const DEFAULT_IDLE_MS = 60_000;

/** A plugin's incremental esbuild context, and the timer that drops it when idle. */
interface Context {
  readonly entry: string;
  readonly bundler: IncrementalBundler;
  idle?: NodeJS.Timeout;
  /** The build started at a file event (`touched`), and the plugin's event count when it started. */
  early?: { readonly events: number; readonly outcome: Promise<BundleOutcome> };
  /** Whether an early build runs now. */
  earlyRunning?: boolean;
  /** An event came while it ran: one more starts when it ends. */
  again?: boolean;
}

/**
 * The one owner of plugins' bundles: the disk cache of bundles, the one-shot builds (a few at a
 * time), and the incremental esbuild contexts of plugins the watcher saw change.
 *
 * A context is created only once the watcher has seen a plugin's files change, so that saves are
 * rebuilt from esbuild's cache; a first load, a settings change or a reload builds once and keeps
 * nothing. A context not rebuilt for `idleMs` is dropped, so the memory esbuild holds does not
 * grow with the number of plugins.
 */
export class PluginBundles {
  readonly #cache: BundleCache | undefined;
  readonly #builds: Limiter;
  readonly #idleMs: number;
  readonly #service: BuildService | undefined;
  readonly #contexts = new Map<string, Context>();
  /** File events of each plugin with a context (`touched`): a build started before the last is stale. */
  readonly #events = new Map<string, number>();

  constructor(options: PluginBundlesOptions = {}) {
    this.#cache = options.cacheDir === undefined ? undefined : new BundleCache(options.cacheDir);
    this.#builds = new Limiter(options.buildSlots ?? DEFAULT_BUILD_SLOTS);
    this.#idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
    this.#service = options.buildService;
  }

  /**
   * The bundle of `plugin`. Its incremental context, when the watcher saw it change (`watched`;
   * created on the first such change); else the disk cache if nothing changed since it was
   * stored (`survey`: this pass's view of the disk), else a one-shot build. A build that succeeds
   * is cached. `building` is told when the build itself starts (after waiting for a slot).
   */
  async bundle(
    plugin: DiscoveredPlugin,
    watched: boolean,
    survey: FileSurvey,
    building: () => void,
  ): Promise<BundleOutcome> {
    let context = this.#contexts.get(plugin.id);
    if (context !== undefined && context.entry !== plugin.entry) {
      this.drop(plugin.id);
      context = undefined;
    }
    const early = context?.early;
    let outcome: BundleOutcome;
    if (context !== undefined && early !== undefined && early.events === this.#events.get(plugin.id)) {
      // Started at the plugin's last file event, while the watcher's batch settled: nothing of the
      // plugin changed since, so it is this pass's build.
      context.early = undefined;
      building();
      outcome = await early.outcome;
    } else {
      const incremental = context !== undefined || watched;
      if (!incremental) {
        const cached = await this.#cache?.bundle(plugin.id, plugin.entry, plugin.dir, survey);
        if (cached !== undefined) return { ok: true, code: cached, inputs: [] };
      }
      outcome = await this.#builds.run(async () => {
        building();
        const options: BundleOptions =
          this.#service === undefined ? { root: plugin.dir } : { root: plugin.dir, service: this.#service };
        if (!incremental) return bundlePlugin(plugin.entry, options);
        const kept = this.#contexts.get(plugin.id) ?? {
          entry: plugin.entry,
          bundler: createIncrementalBundler(plugin.entry, options),
        };
        this.#contexts.set(plugin.id, kept);
        const result = await kept.bundler.rebuild();
        this.#keep(plugin.id, kept);
        return result;
      });
    }
    if (outcome.ok) this.#cache?.storeBundle(plugin.id, plugin.entry, outcome.code, outcome.inputs);
    return outcome;
  }

  /**
   * A file of `pluginId` changed (the watcher's event, before its batch settles). A plugin with an
   * incremental context (one saved in the last minute) is rebuilt at once, so the pass that
   * follows the batch finds its build done: the settling and the build overlap instead of adding
   * up. The pass takes that build only if no event of the plugin came after it started; one that
   * came while it ran starts one more build when it ends (never more than one waiting).
   */
  touched(pluginId: string): void {
    const context = this.#contexts.get(pluginId);
    // Counted only while the plugin has a context: only its early builds are compared with it.
    if (context === undefined) return;
    const events = (this.#events.get(pluginId) ?? 0) + 1;
    this.#events.set(pluginId, events);
    if (context.earlyRunning === true) context.again = true;
    else this.#buildEarly(pluginId, context, events);
  }

  #buildEarly(pluginId: string, context: Context, events: number): void {
    context.earlyRunning = true;
    context.again = false;
    const outcome = context.bundler.rebuild();
    context.early = { events, outcome };
    this.#keep(pluginId, context);
    void outcome.then(() => {
      context.earlyRunning = false;
      if (context.again === true && this.#contexts.get(pluginId) === context) {
        this.#buildEarly(pluginId, context, this.#events.get(pluginId) ?? 0);
      }
    });
  }

  /** (Re)starts the idle timer of a context. */
  #keep(id: string, context: Context): void {
    clearTimeout(context.idle);
    context.idle = setTimeout(() => {
      if (this.#contexts.get(id) === context) this.drop(id);
    }, this.#idleMs);
    // An idle context must not keep the host process alive.
    context.idle.unref();
  }

  /** Drops the context of `pluginId` (its entry changed, it went, or it idled), if it has one. */
  drop(pluginId: string): void {
    const context = this.#contexts.get(pluginId);
    if (context === undefined) return;
    this.#contexts.delete(pluginId);
    this.#events.delete(pluginId);
    clearTimeout(context.idle);
    void context.bundler.dispose();
  }

  /** How many plugins hold an incremental esbuild context now. */
  get contexts(): number {
    return this.#contexts.size;
  }

  /** Drops every context. */
  dispose(): void {
    for (const id of [...this.#contexts.keys()]) this.drop(id);
  }
}
