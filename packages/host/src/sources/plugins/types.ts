import type { PluginManifest } from '@toolhost/plugin-sdk/protocol';
import type { PluginGrants } from '../../capabilities/index.js';
import type { ConfigurableCapabilityLimits, LimitsTable, SandboxLimits } from '../../config/limits.js';
import type { Sandbox } from '../../sandbox/types.js';
import type { ToolHooks, ToolSource } from '../../types.js';
import type { ControlPaths } from '../../workspace/control.js';

/** What config says about one plugin (`plugins.<id>`). */
export interface PluginSettings {
  /** Default true. A disabled plugin's tools are listed as hidden with `plugin-disabled`. */
  readonly enabled?: boolean;
  /** Validated against the plugin's own config schema. */
  readonly config?: unknown;
  readonly grants?: PluginGrants;
  readonly limits?: Partial<SandboxLimits & ConfigurableCapabilityLimits>;
  /** Which calls the plugin's hooks see: its own tools' (default) or every tool's. */
  readonly hooks?: 'own' | 'all';
  /** Built-in tools the plugin's tools of the same name replace (read by the registry, not the loader). */
  readonly overrides?: readonly string[];
}

/** Where a plugin stands after a load. */
export type PluginStatus = 'disabled' | 'failed' | 'loaded' | 'loading' | 'quarantined';

/** One plugin's state after a load, for `toolhost list` and diagnostics. */
export interface PluginReport {
  readonly id: string;
  readonly status: PluginStatus;
  readonly diagnostics: readonly string[];
  readonly manifest?: PluginManifest;
  /**
   * What is loaded (bundle, limits, plugin config) as one hash, for loaded and disabled plugins:
   * it changes with the code even when no tool does (`toolhost dev` says "code reloaded").
   */
  readonly fingerprint?: string;
}

export interface LoadPluginsOptions {
  /** The project root: fs grants resolve against it. */
  readonly root: string;
  readonly sandbox: Sandbox;
  readonly settings?: Readonly<Record<string, PluginSettings>>;
  /** Every limit, resolved (limits.ts); default: the defaults. */
  readonly limits?: LimitsTable;
  /** Where granted env values come from; default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The host's control files, which `ctx.fs` never reaches whatever the grants; default under `root`. */
  readonly controlPaths?: ControlPaths;
  /** Why a plugin loaded as `fingerprint` may not run now (quarantined), if it may not. */
  readonly blocked?: (pluginId: string, fingerprint: string) => string | undefined;
  /** Runs a describe when its turn comes (a bounded pool of describe isolates); default at once. */
  readonly limitDescribe?: <T>(task: () => Promise<T>) => Promise<T>;
}

/**
 * A loaded plugin's hold on its version in the sandbox. The host keeps it while any Map holding
 * the plugin's tools may still run a call, then releases it; the sandbox unloads the version when
 * its last hold goes (and disposes the isolate once the calls running there end).
 */
export interface PluginLease {
  readonly pluginId: string;
  /** The sandbox version the plugin's tools and hooks call. */
  readonly version: number;
  /** Lets go; calling it again does nothing. */
  release(): void;
}

/** The result of loading one plugin: its contribution to the registry and its report. */
export interface PluginLoad {
  readonly source: ToolSource;
  readonly hooks?: ToolHooks;
  readonly report: PluginReport;
  /** Present while the plugin is loaded in the sandbox. */
  readonly lease?: PluginLease;
  /**
   * What was loaded — bundle, limits and plugin config — as one hash (loaded and disabled plugins).
   * A quarantine holds while it stays the same.
   */
  readonly fingerprint?: string;
}
