import type { PluginManifest } from '@toolhost/plugin-sdk/protocol';
import { createCapabilityProvider, type PluginGrants } from '../../capabilities/index.js';
import {
  type ConfigurableCapabilityLimits,
  type LimitsTable,
  pluginLimits,
  resolveLimits,
  type SandboxLimits,
} from '../../config/limits.js';
import type { Sandbox } from '../../sandbox/types.js';
import type { ToolHooks, ToolSource } from '../../types.js';
import { messageOf } from '../../util/errors.js';
import type { ControlPaths } from '../../workspace/control.js';
import { type PluginCache, sha256 } from './cache.js';
import { configAdvice } from './config-help.js';
import type { DiscoveredPlugin } from './discover.js';
import { parseDescribeReply } from './manifest.js';
import { hiddenEntries, type LoadedPlugin, pluginHooks, pluginTools } from './plugin-tools.js';

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

function failed(
  id: string,
  message: string,
  tools?: readonly string[] | PluginManifest['tools'],
): PluginLoad {
  return {
    source: {
      kind: 'plugin',
      id,
      tools: [],
      unavailable: hiddenEntries(id, tools, 'plugin-load-failed', message),
    },
    report: { id, status: 'failed', diagnostics: [message] },
  };
}

/** Where a plugin's bundle comes from: a one-shot build with the disk cache, or an incremental context. */
export type BundleSource = () => Promise<{ ok: true; code: string } | { ok: false; error: string }>;

/**
 * Loads one plugin: bundle (or reuse the cached bundle), read its manifest in a throwaway isolate
 * (or reuse the cached one), check it, and build its tools. Never throws: a plugin that fails at
 * any step is hidden with `plugin-load-failed` and the reason; other plugins are not touched.
 */
export async function loadPlugin(
  plugin: DiscoveredPlugin,
  options: LoadPluginsOptions,
  cache: PluginCache | undefined,
  bundle: BundleSource,
): Promise<PluginLoad> {
  try {
    return await loadFromBundle(plugin.id, await bundle(), options, cache);
  } catch (error) {
    return failed(plugin.id, `plugin "${plugin.id}" failed to load: ${messageOf(error)}`);
  }
}

async function loadFromBundle(
  id: string,
  bundled: Awaited<ReturnType<BundleSource>>,
  options: LoadPluginsOptions,
  cache: PluginCache | undefined,
): Promise<PluginLoad> {
  const settings = options.settings?.[id] ?? {};
  const {
    limits,
    timeout,
    capabilities: capabilityLimits,
  } = pluginLimits(options.limits ?? resolveLimits(undefined), id, settings.limits);
  if (!bundled.ok) return failed(id, `plugin "${id}" does not build: ${bundled.error}`);

  const configJson = JSON.stringify(settings.config ?? null);
  // Hashed once: the manifest cache and the fingerprint are both keyed by it.
  const bundleHash = sha256(bundled.code);
  let raw = await cache?.manifest(bundleHash, configJson);
  if (raw === undefined) {
    const describe = () => options.sandbox.describe(bundled.code, configJson, limits);
    const outcome = await (options.limitDescribe?.(describe) ?? describe());
    if (outcome.kind === 'limit')
      return failed(id, `plugin "${id}" could not be described: ${outcome.message}`);
    raw = outcome.reply;
    // The reply is plugin-controlled data until parsed: it may be anything, null included.
    if ((raw as { ok?: unknown } | null)?.ok === true)
      await cache?.storeManifest(bundleHash, configJson, raw);
  }
  const reply = parseDescribeReply(raw);
  if (!reply.ok) return failed(id, `plugin "${id}" failed to load: ${reply.error}`, reply.toolNames);
  const manifest = reply.manifest;
  if (manifest.id !== id) {
    return failed(
      id,
      `plugin in plugins/${id}/ declares id "${manifest.id}"; the id must match the folder name`,
      manifest.tools,
    );
  }
  const fingerprint = sha256(
    `${bundleHash}\n${JSON.stringify(limits)}\n${JSON.stringify(capabilityLimits)}\n${configJson}`,
  );
  if (settings.enabled === false) {
    const message = `plugin "${id}" is disabled in config (plugins.${id}.enabled: false)`;
    return {
      source: {
        kind: 'plugin',
        id,
        tools: [],
        unavailable: hiddenEntries(id, manifest.tools, 'plugin-disabled', message),
      },
      report: { id, status: 'disabled', diagnostics: [message], manifest, fingerprint },
      fingerprint,
    };
  }
  if (manifest.configIssues !== undefined) {
    const detail = manifest.configIssues
      .map((i) => `plugins.${id}.config.${i.path}: ${i.message}`)
      .join('; ');
    const advice = configAdvice(id, manifest.configSchema, settings.config);
    return failed(id, `plugin "${id}" has an invalid config: ${detail}. Fix: ${advice}`, manifest.tools);
  }

  const capabilities = createCapabilityProvider({
    pluginId: id,
    root: options.root,
    permissions: manifest.permissions,
    grants: settings.grants ?? {},
    limits: capabilityLimits,
    ...(options.controlPaths === undefined ? {} : { controlPaths: options.controlPaths }),
  });
  const env = capabilities.envValues(options.env ?? process.env);
  // Last: nothing after this can fail, so the hold taken here always ends up in a lease.
  const version = options.sandbox.load(id, bundled.code, limits);
  let held = true;
  const lease: PluginLease = {
    pluginId: id,
    version,
    release: () => {
      if (!held) return;
      held = false;
      options.sandbox.unload(id, version);
    },
  };
  const blocked = options.blocked;
  const loaded: LoadedPlugin = {
    id,
    version,
    manifest,
    sandbox: options.sandbox,
    blocked: blocked === undefined ? () => undefined : () => blocked(id, fingerprint),
    limits,
    logs: (options.limits ?? resolveLimits(undefined)).logs,
    timeout,
    config: settings.config,
    capabilities,
    env,
    hookScope: settings.hooks ?? 'own',
  };
  const hooks = pluginHooks(loaded);
  return {
    source: { kind: 'plugin', id, tools: pluginTools(loaded) },
    ...(hooks === undefined ? {} : { hooks }),
    report: { id, status: 'loaded', diagnostics: [], manifest, fingerprint },
    lease,
    fingerprint,
  };
}
