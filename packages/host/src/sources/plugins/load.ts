import type { PluginManifest } from '@toolhost/plugin-sdk/protocol';
import { createCapabilityProvider } from '../../capabilities/index.js';
import { pluginLimits, resolveLimits } from '../../config/limits.js';
import { messageOf } from '../../util/errors.js';
import type { BundleOutcome } from './bundle.js';
import { sha256 } from './cache.js';
import { configAdvice } from './config-help.js';
import { parseDescribeReply } from './manifest.js';
import type { ManifestCache } from './manifest-cache.js';
import { hiddenEntries, type LoadedPlugin, pluginHooks, pluginTools } from './plugin-tools.js';
import type { LoadPluginsOptions, PluginLease, PluginLoad, PluginStatus } from './types.js';

/** The tools of a plugin that has none to offer now, as far as they are known. */
type KnownTools = readonly string[] | PluginManifest['tools'] | undefined;

/**
 * The one shape of a load that offers no tool (failed, still loading, quarantined, disabled):
 * each tool it is known to have (or, when none is known, the plugin itself) hidden with `reason`
 * and `message`, which is also the report's one diagnostic.
 */
export function hiddenLoad(
  id: string,
  status: Exclude<PluginStatus, 'loaded'>,
  message: string,
  tools?: KnownTools,
  manifest?: PluginManifest,
): PluginLoad {
  const reason =
    status === 'disabled'
      ? 'plugin-disabled'
      : status === 'quarantined'
        ? 'quarantined'
        : 'plugin-load-failed';
  return {
    source: { kind: 'plugin', id, tools: [], unavailable: hiddenEntries(id, tools, reason, message) },
    report: { id, status, diagnostics: [message], ...(manifest === undefined ? {} : { manifest }) },
  };
}

/** A load that failed: its tools (as far as known) hidden with `plugin-load-failed` and the reason. */
export function failedLoad(
  id: string,
  message: string,
  tools?: KnownTools,
  manifest?: PluginManifest,
): PluginLoad {
  return hiddenLoad(id, 'failed', message, tools, manifest);
}

/**
 * Loads one plugin from its bundle (`bundles.ts` makes it): read its manifest in a throwaway
 * isolate (or reuse the cached one), check it, and build its tools. Never throws: a plugin that
 * fails at any step is hidden with `plugin-load-failed` and the reason; other plugins are not
 * touched.
 */
export async function loadPlugin(
  id: string,
  bundled: BundleOutcome,
  options: LoadPluginsOptions,
  manifests: ManifestCache | undefined,
): Promise<PluginLoad> {
  try {
    return await loadFromBundle(id, bundled, options, manifests);
  } catch (error) {
    return failedLoad(id, `plugin "${id}" failed to load: ${messageOf(error)}`);
  }
}

async function loadFromBundle(
  id: string,
  bundled: BundleOutcome,
  options: LoadPluginsOptions,
  manifests: ManifestCache | undefined,
): Promise<PluginLoad> {
  const settings = options.settings?.[id] ?? {};
  const {
    limits,
    timeout,
    capabilities: capabilityLimits,
  } = pluginLimits(options.limits ?? resolveLimits(undefined), id, settings.limits);
  if (!bundled.ok) return failedLoad(id, `plugin "${id}" does not build: ${bundled.error}`);

  const configJson = JSON.stringify(settings.config ?? null);
  // Hashed once: the manifest cache and the fingerprint are both keyed by it.
  const bundleHash = sha256(bundled.code);
  let reply = manifests?.manifest(bundleHash, configJson);
  if (reply === undefined) {
    const describe = () => options.sandbox.describe(bundled.code, configJson, limits);
    const outcome = await (options.limitDescribe?.(describe) ?? describe());
    if (outcome.kind === 'limit')
      return failedLoad(id, `plugin "${id}" could not be described: ${outcome.message}`);
    // The reply is plugin-controlled data until checked: it may be anything, null included.
    const raw = outcome.reply;
    reply = parseDescribeReply(raw);
    // Stored checked, whether the check passed or not: the same bundle and config conclude the same.
    // A reply in which the plugin itself reports a failure is not stored (it is described again).
    if ((raw as { ok?: unknown } | null)?.ok === true)
      manifests?.storeManifest(bundleHash, configJson, reply);
  }
  if (!reply.ok) return failedLoad(id, `plugin "${id}" failed to load: ${reply.error}`, reply.toolNames);
  const manifest = reply.manifest;
  if (manifest.id !== id) {
    return failedLoad(
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
    const disabled = hiddenLoad(id, 'disabled', message, manifest.tools, manifest);
    return { ...disabled, report: { ...disabled.report, fingerprint }, fingerprint };
  }
  if (manifest.configIssues !== undefined) {
    const detail = manifest.configIssues
      .map((i) => `plugins.${id}.config.${i.path}: ${i.message}`)
      .join('; ');
    const advice = configAdvice(id, manifest.configSchema, settings.config);
    return failedLoad(id, `plugin "${id}" has an invalid config: ${detail}. Fix: ${advice}`, manifest.tools);
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
