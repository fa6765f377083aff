import * as path from 'node:path';
import type { AvailabilityContext } from '@toolhost/plugin-sdk';
import type { LimitsTable } from '../../config/limits.js';
import type { IsolateSettings, Sandbox, SandboxCrash } from '../../sandbox/types.js';
import type { Disposer, MapHold, RefreshReason, SourceAdapter, ToolHooks, ToolSource } from '../../types.js';
import { Listeners } from '../../util/listeners.js';
import type { ControlPaths } from '../../workspace/control.js';
import { LeaseCounts } from './holds.js';
import { PluginSet, type PluginSetOptions } from './plugin-set.js';
import { Quarantine } from './quarantine.js';
import type { PluginLoad, PluginReport, PluginSettings } from './types.js';

/** What the plugin source reads from the host's settings at each refresh. */
export interface PluginSourceSettings {
  /** When idle isolates go; a change applies at the next refresh, without a restart. */
  readonly isolates: IsolateSettings;
  readonly plugins: Readonly<Record<string, PluginSettings>>;
  readonly limits: LimitsTable;
  /** Where granted variables come from: the real environment (or the one given in code). */
  readonly env: Readonly<Record<string, string | undefined>>;
}

export interface PluginSourceOptions {
  /** The project root: fs grants resolve against it, `.toolhost/` lives in it. */
  readonly root: string;
  /** The plugins folder. */
  readonly dir: string;
  /** The config file in force, closed to plugins' `ctx.fs` (as the plugins folder and `.toolhost/` are). */
  readonly configFile?: string;
  /** The skills folder, closed to plugins' `ctx.fs` for writing. Default `<root>/skills`. */
  readonly skillsDir?: string;
  /** Use the `.toolhost/cache/` bundle and manifest cache. */
  readonly cache: boolean;
  readonly settings: () => PluginSourceSettings;
  /** The sandbox plugins run in: the host's (shared with code mode), made on first use; its owner closes it. */
  readonly sandbox: () => Sandbox;
  /** How loads are paced (build and describe slots, stragglers, idle contexts); tests set it. */
  readonly pacing?: Omit<PluginSetOptions, 'onLanded'>;
}

/**
 * The plugins of a folder as a source: bundled, described and run in the host's sandbox (the
 * loads come from `PluginSet`). Each Map it contributes to holds the plugin versions its tools
 * call, so a call the Map admitted finishes on them. A plugin whose load lags far behind the
 * others is published as still loading and joins later on its own.
 *
 * The quarantine lives here, and only here: a plugin that keeps crashing the executor is
 * quarantined (its tools refuse at once, then are hidden), the quarantine is laid over the set's
 * loads, and lifted for a plugin that changed or went, or for all on an operator's reload.
 */
export class PluginSource implements SourceAdapter {
  readonly name = 'plugins';
  readonly #options: PluginSourceOptions;
  readonly #set: PluginSet;
  readonly #quarantine: Quarantine;
  readonly #controlPaths: ControlPaths;
  readonly #leases = new LeaseCounts();
  readonly #changed = new Listeners<string>();
  #sandbox: Sandbox | undefined;
  #stopCrashes: Disposer | undefined;
  /** The loads the Map is built from: replaced whole, only when a refresh has finished. */
  #loads: readonly PluginLoad[] = [];
  #closed = false;

  constructor(options: PluginSourceOptions) {
    this.#options = options;
    this.#quarantine = new Quarantine(path.join(options.root, '.toolhost', 'quarantine.json'));
    this.#set = new PluginSet(options.dir, options.root, options.cache, {
      ...options.pacing,
      // A plugin that lagged behind the others landed: its tools join the Map in a rebuild.
      onLanded: (pluginId) => {
        if (this.#closed) return;
        this.#loads = this.#settled(false);
        this.#changed.emit(`plugin:${pluginId}`);
      },
    });
    this.#controlPaths = {
      pluginsDir: options.dir,
      ...(options.configFile === undefined ? {} : { configFile: options.configFile }),
      ...(options.skillsDir === undefined ? {} : { skillsDir: options.skillsDir }),
    };
  }

  /** The sandbox the plugins run in, once the first refresh made it. */
  get sandbox(): Sandbox | undefined {
    return this.#sandbox;
  }

  /** Each plugin's status and diagnostics after the last refresh. */
  /**
   * A file of plugin `id` changed (the watcher's event, before its batch): a plugin saved lately
   * starts its build now (`PluginBundles.touched`).
   */
  touched(id: string): void {
    if (!this.#closed) this.#set.touched(id);
  }

  get reports(): readonly PluginReport[] {
    return this.#loads.map((load) => load.report);
  }

  async refresh(reason: RefreshReason): Promise<boolean> {
    // Files of no plugin changed (a SKILL.md edit, say): nothing to rebuild here.
    if (this.#closed || (reason.kind === 'files' && reason.ids.size === 0)) return false;
    const settings = this.#options.settings();
    if (this.#sandbox === undefined) {
      this.#sandbox = this.#options.sandbox();
      this.#stopCrashes = this.#sandbox.onCrash((crash) => this.#onCrash(crash));
    }
    this.#sandbox.configureIsolates(settings.isolates);
    // Read before any load: a quarantined plugin's tools refuse from their first call.
    await this.#quarantine.open();
    const quarantine = this.#quarantine;
    await this.#set.refresh(
      {
        root: this.#options.root,
        controlPaths: this.#controlPaths,
        sandbox: this.#sandbox,
        settings: settings.plugins,
        limits: settings.limits,
        env: settings.env,
        blocked: (id, fingerprint) => quarantine.reason(id, fingerprint),
      },
      reason.kind === 'files' ? reason.ids : undefined,
    );
    // An operator's reload gives quarantined plugins another chance.
    this.#loads = this.#settled(reason.kind === 'reload');
    return true;
  }

  /**
   * The set's loads with the quarantine laid over them, after lifting it for every plugin that
   * changed or went (for every plugin with `liftAll`).
   */
  #settled(liftAll: boolean): readonly PluginLoad[] {
    const loads = this.#set.loads();
    this.#quarantine.lift(loads, liftAll);
    return this.#quarantine.apply(loads);
  }

  /**
   * An executor death charged to a plugin, if that is the version loaded now (a replaced
   * version's death says nothing about the current code); the third one quarantines it. Recorded
   * at once, so no call starts there after it (the tools refuse); the rebuild that hides the tools
   * follows. True when it started the quarantine.
   */
  #onCrash(crash: SandboxCrash): boolean {
    if (this.#closed) return false;
    const load = this.#set.current(crash.pluginId);
    if (load?.lease?.version !== crash.version || load.fingerprint === undefined) return false;
    if (!this.#quarantine.recordCrash(crash.pluginId, load.fingerprint, crash.message)) return false;
    this.#loads = this.#quarantine.apply(this.#set.loads());
    this.#changed.emit(`quarantine:${crash.pluginId}`);
    return true;
  }

  /**
   * A death no sandbox here saw: the supervised `serve` process that ran `pluginId` inline died,
   * and its successor hears of it from the supervisor. Charged to the version loaded now, as an
   * executor death is; true when that starts the plugin's quarantine.
   */
  chargeCrash(pluginId: string, message: string): boolean {
    const version = this.#set.current(pluginId)?.lease?.version;
    return version !== undefined && this.#onCrash({ pluginId, version, message });
  }

  contributions(): readonly ToolSource[] {
    return this.#loads.map((load) => load.source);
  }

  hooks(): readonly ToolHooks[] {
    return this.#loads.flatMap((load) => (load.hooks === undefined ? [] : [load.hooks]));
  }

  facts(): Partial<AvailabilityContext> {
    return {
      enabledPlugins: this.#loads.filter((l) => l.report.status === 'loaded').map((l) => l.report.id),
    };
  }

  hold(): MapHold {
    return this.#leases.hold(this.#loads);
  }

  onChange(listener: (cause: string) => void): Disposer {
    return this.#changed.add(listener);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#set.dispose();
    this.#stopCrashes?.();
    this.#sandbox = undefined;
  }
}

/** The plugins folder of a host: the configured one, else `<root>/plugins`. */
export function pluginsDirOf(root: string, dir: string | undefined): string {
  return path.resolve(root, dir ?? 'plugins');
}
