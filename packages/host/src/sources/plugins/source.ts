import * as path from 'node:path';
import type { AvailabilityContext } from '@toolhost/plugin-sdk';
import type { LimitsTable } from '../../config/limits.js';
import type { IsolateSettings, Sandbox, SandboxCrash } from '../../sandbox/types.js';
import type { Disposer, MapHold, RefreshReason, SourceAdapter, ToolHooks, ToolSource } from '../../types.js';
import { Listeners } from '../../util/listeners.js';
import type { ControlPaths } from '../../workspace/control.js';
import { LeaseCounts } from './holds.js';
import type { PluginLoad, PluginReport, PluginSettings } from './manager.js';
import { PluginSet, type PluginSetOptions } from './plugin-set.js';

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
 * The plugins of a folder as a source: bundled, described and run in the host's sandbox. Each Map it contributes to holds the plugin
 * versions its tools call, so a call the Map admitted finishes on them. A plugin that keeps
 * crashing the executor is quarantined: its tools are hidden and the source says so. A plugin
 * whose load lags far behind the others is published as still loading and joins later on its own.
 */
export class PluginSource implements SourceAdapter {
  readonly name = 'plugins';
  readonly #options: PluginSourceOptions;
  readonly #set: PluginSet;
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
    this.#set = new PluginSet(options.dir, options.root, options.cache, {
      ...options.pacing,
      // A plugin that lagged behind the others landed: its tools join the Map in a rebuild.
      onLanded: (pluginId) => {
        if (this.#closed) return;
        this.#loads = this.#set.loads();
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
  get reports(): readonly PluginReport[] {
    return this.#loads.map((load) => load.report);
  }

  async refresh(reason: RefreshReason): Promise<boolean> {
    if (this.#closed) return false;
    const settings = this.#options.settings();
    if (this.#sandbox === undefined) {
      this.#sandbox = this.#options.sandbox();
      this.#stopCrashes = this.#sandbox.onCrash((crash) => this.#onCrash(crash));
    }
    this.#sandbox.configureIsolates(settings.isolates);
    this.#loads = await this.#set.refresh(
      {
        root: this.#options.root,
        controlPaths: this.#controlPaths,
        sandbox: this.#sandbox,
        settings: settings.plugins,
        limits: settings.limits,
        env: settings.env,
      },
      reason.kind === 'files' ? reason.ids : undefined,
      // An operator's reload gives quarantined plugins another chance.
      { liftQuarantine: reason.kind === 'reload' },
    );
    return true;
  }

  /**
   * An executor death charged to a plugin; the third one quarantines it. Recorded at once, so no
   * call starts there after it (the tools refuse); the rebuild that hides the tools follows.
   */
  #onCrash(crash: SandboxCrash): boolean {
    if (this.#closed || !this.#set.recordCrash(crash)) return false;
    this.#loads = this.#set.loads();
    this.#changed.emit(`quarantine:${crash.pluginId}`);
    return true;
  }

  /**
   * A death no sandbox here saw: the supervised `serve` process that ran `pluginId` inline died,
   * and its successor hears of it from the supervisor. Charged to the version loaded now, as an
   * executor death is; true when that starts the plugin's quarantine.
   */
  chargeCrash(pluginId: string, message: string): boolean {
    const version = this.#set.currentVersion(pluginId);
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
    await this.#set.dispose();
    this.#stopCrashes?.();
    this.#sandbox = undefined;
  }
}

/** The plugins folder of a host: the configured one, else `<root>/plugins`. */
export function pluginsDirOf(root: string, dir: string | undefined): string {
  return path.resolve(root, dir ?? 'plugins');
}
