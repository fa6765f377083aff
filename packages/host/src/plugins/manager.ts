import type { PluginManifest } from '@toolhost/plugin-sdk/protocol';
import { createCapabilityProvider, type PluginGrants } from '../capabilities/index.js';
import { DEFAULT_SANDBOX_LIMITS, type Sandbox, type SandboxLimits } from '../sandbox/types.js';
import type { ToolHooks, ToolSource } from '../types.js';
import type { PluginCache } from './cache.js';
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
  readonly limits?: Partial<SandboxLimits>;
  /** Which calls the plugin's hooks see: its own tools' (default) or every tool's. */
  readonly hooks?: 'own' | 'all';
}

export type PluginStatus = 'disabled' | 'failed' | 'loaded' | 'quarantined';

/** One plugin's state after a load, for `toolhost list` and diagnostics. */
export interface PluginReport {
  readonly id: string;
  readonly status: PluginStatus;
  readonly diagnostics: readonly string[];
  readonly manifest?: PluginManifest;
}

export interface LoadPluginsOptions {
  /** The project root: fs grants resolve against it. */
  readonly root: string;
  readonly sandbox: Sandbox;
  readonly settings?: Readonly<Record<string, PluginSettings>>;
  readonly defaultLimits?: Partial<SandboxLimits>;
  /** Where granted env values come from; default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** The result of loading one plugin: its contribution to the registry and its report. */
export interface PluginLoad {
  readonly source: ToolSource;
  readonly hooks?: ToolHooks;
  readonly report: PluginReport;
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
    return failed(
      plugin.id,
      `plugin "${plugin.id}" failed to load: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

async function loadFromBundle(
  id: string,
  bundled: Awaited<ReturnType<BundleSource>>,
  options: LoadPluginsOptions,
  cache: PluginCache | undefined,
): Promise<PluginLoad> {
  const settings = options.settings?.[id] ?? {};
  const limits: SandboxLimits = { ...DEFAULT_SANDBOX_LIMITS, ...options.defaultLimits, ...settings.limits };
  if (!bundled.ok) return failed(id, `plugin "${id}" does not build: ${bundled.error}`);

  const configJson = JSON.stringify(settings.config ?? null);
  let raw = await cache?.manifest(bundled.code, configJson);
  if (raw === undefined) {
    const outcome = await options.sandbox.describe(bundled.code, configJson, limits);
    if (outcome.kind === 'limit')
      return failed(id, `plugin "${id}" could not be described: ${outcome.message}`);
    raw = outcome.reply;
    // The reply is plugin-controlled data until parsed: it may be anything, null included.
    if ((raw as { ok?: unknown } | null)?.ok === true)
      await cache?.storeManifest(bundled.code, configJson, raw);
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
  if (settings.enabled === false) {
    const message = `plugin "${id}" is disabled in config (plugins.${id}.enabled: false)`;
    return {
      source: {
        kind: 'plugin',
        id,
        tools: [],
        unavailable: hiddenEntries(id, manifest.tools, 'plugin-disabled', message),
      },
      report: { id, status: 'disabled', diagnostics: [message], manifest },
    };
  }
  if (manifest.configIssues !== undefined) {
    const detail = manifest.configIssues
      .map((i) => `plugins.${id}.config.${i.path}: ${i.message}`)
      .join('; ');
    return failed(id, `plugin "${id}" has an invalid config: ${detail}`, manifest.tools);
  }

  const capabilities = createCapabilityProvider({
    pluginId: id,
    root: options.root,
    permissions: manifest.permissions,
    grants: settings.grants ?? {},
  });
  const loaded: LoadedPlugin = {
    id,
    manifest,
    sandbox: options.sandbox,
    limits,
    config: settings.config,
    capabilities,
    env: capabilities.envValues(options.env ?? process.env),
    hookScope: settings.hooks ?? 'own',
  };
  options.sandbox.load(id, bundled.code, limits);
  const hooks = pluginHooks(loaded);
  return {
    source: { kind: 'plugin', id, tools: pluginTools(loaded) },
    ...(hooks === undefined ? {} : { hooks }),
    report: { id, status: 'loaded', diagnostics: [], manifest },
  };
}
