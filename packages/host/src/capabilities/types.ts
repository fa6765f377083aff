/**
 * The shapes of the capability provider: what a sandboxed plugin may reach on the host, and how
 * the operator's grants narrow what the plugin declares.
 */
import type { PluginPermissions } from '@toolhost/plugin-sdk';
import type { PluginGrants } from '../config/grants.js';
import type { CapabilityLimits } from '../config/limits.js';
import type { TraceContext } from '../types.js';
import type { FolderMode } from '../workspace/beneath.js';
import type { ControlPaths } from '../workspace/control.js';
import type { FetchResolver } from './fetch-resolve.js';
import type { FetchTransport } from './fetch-transport.js';

export type { PluginGrants } from '../config/grants.js';
export type { CapabilityLimits } from '../config/limits.js';

/** What a plugin may actually use: its declared permissions narrowed by the grants. */
export interface EffectivePermissions {
  /** Canonical host patterns (lower case), sorted. */
  readonly net: readonly string[];
  /** Normalized folders relative to the project root (`.` for the root itself), sorted. */
  readonly fs: {
    /** Readable roots: declared and granted for read, plus every effective write root. */
    readonly read: readonly string[];
    readonly write: readonly string[];
  };
  /** Environment variable names, sorted. */
  readonly env: readonly string[];
}

/** One declared permission that does not take effect, for `doctor` and diagnostics. */
export interface MissingGrant {
  /** The permission as declared, e.g. `permissions.net "api.example.com"`. */
  readonly permission: string;
  /** Where config grants it, e.g. `plugins.weather.grants.net`. */
  readonly configKey: string;
  /** `not-granted`: config does not grant it; `invalid`: no grant can make the declared value valid. */
  readonly reason: 'invalid' | 'not-granted';
}

export interface CapabilityProviderOptions {
  /** The plugin's id, named in every denial. */
  readonly pluginId: string;
  /** The project root; fs paths resolve against it. */
  readonly root: string;
  /** Declared by the plugin: untrusted data, checked entry by entry. */
  readonly permissions: PluginPermissions;
  /** From operator config. */
  readonly grants: PluginGrants;
  /** Overrides of {@link DEFAULT_CAPABILITY_LIMITS}. */
  readonly limits?: Partial<CapabilityLimits>;
  /**
   * Where the host's control files are (the config in force, the plugins folder); default under
   * `root`. `ctx.fs` never writes them nor reads the config, whatever the grants.
   */
  readonly controlPaths?: ControlPaths;
  /**
   * How `ctx.fetch` resolves host names, for tests; default the system resolver (`dns.lookup`),
   * each answer reused for a few seconds. Every answer is checked, whatever resolved it.
   */
  readonly resolve?: FetchResolver;
  /** How `ctx.fetch` sends a checked request; default node:http(s). For tests. */
  readonly transport?: FetchTransport;
  /**
   * How `ctx.fs` holds the folders it walks: `descriptors` (default wherever `/proc/self/fd`
   * works) or `paths` (elsewhere). For tests and benchmarks.
   */
  readonly folderMode?: FolderMode;
}

/** The host end of one plugin's capability requests. */
export interface CapabilityProvider {
  /**
   * Serves one request from the plugin's runtime (`fetch`, `fs.readFile`, `fs.writeFile`,
   * `fs.appendFile`, `fs.readdir`, `fs.stat`, `fs.mkdir`, `fs.rm`, `fs.rename`). `args` is untrusted JSON. Resolves with a JSON-able value or rejects
   * with a {@link CapabilityError} whose message is safe to show to plugin code. `trace`: the
   * call's trace context, which `fetch` sends on.
   */
  invoke(capability: string, args: unknown, signal: AbortSignal, trace?: TraceContext): Promise<unknown>;
  /** The effective (declared ∩ granted) environment variable names. */
  readonly envGranted: readonly string[];
  /** The values of the effective environment variables that are set in `processEnv`. */
  envValues(processEnv: Readonly<Record<string, string | undefined>>): Record<string, string>;
  readonly effective: EffectivePermissions;
}
