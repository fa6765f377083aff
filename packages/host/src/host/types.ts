import type { AvailabilityContext, ToolDefinition, ToolDiagnostic } from '@toolhost/plugin-sdk';
import type * as z from 'zod';
import type { ConfigIssue } from '../config/load.js';
import type { configSchema } from '../config/schema.js';
import type { RegistryDiagnostic, ToolHooks } from '../types.js';

/** A tool that became hidden, and why. */
export interface NewlyHidden {
  readonly name: string;
  readonly diagnostics: readonly ToolDiagnostic[];
}

/** What one swap of the Map changed, by tool name (the plan without session context). */
export interface HostChange {
  /** Increases with every swap. */
  readonly version: number;
  /** Tools that exist now and did not before (visible or hidden). */
  readonly added: readonly string[];
  readonly removed: readonly string[];
  /** Tools whose descriptor differs. */
  readonly changed: readonly string[];
  readonly newlyHidden: readonly NewlyHidden[];
  readonly newlyVisible: readonly string[];
  readonly diagnostics: readonly RegistryDiagnostic[];
  /**
   * What set off the rebuild: `start`, `config`, `plugins:<id>,…`, `reload`, `api`, `mcp` (a server
   * changed), `quarantine:<id>`.
   */
  readonly cause: string;
  /** From the start of the rebuild (bundling included) to the swap, ms. */
  readonly durationMs: number;
  /**
   * Of `durationMs`, the part after the sources were refreshed: the whole Map merged again, planned,
   * diffed against the last plan and swapped in, ms.
   */
  readonly swapMs: number;
}

/** Something went wrong outside any call: an invalid config file, a watcher error. */
export type HostError =
  | { readonly kind: 'config'; readonly issues: readonly ConfigIssue[]; readonly message: string }
  | { readonly kind: 'watch'; readonly message: string }
  | { readonly kind: 'load'; readonly message: string };

/** Hears each swap of the Map (`host.on('change', …)`). */
export type ChangeListener = (change: HostChange) => void;
/** Hears each error outside any call (`host.on('error', …)`). */
export type ErrorListener = (error: HostError) => void;

/**
 * How to create a host (`createHost`): the config file's keys, with the same shape and the same
 * validation (`toolhost.config.json` passed as an object gives the same host), plus the options
 * that only code can give ({@link HostCodeOptions}). An unknown key is a `ConfigError` naming it.
 * The config given here is laid over the config file's, key by key (see `layerConfig`).
 */
export type HostOptions = ToolhostConfigInput & HostCodeOptions;

/** What `toolhost.config.json` holds, as code passes it to `createHost` (readonly arrays welcome). */
export type ToolhostConfigInput = DeepReadonly<z.input<typeof configSchema>>;

/** `T` with every array and object readonly, all the way down. */
type DeepReadonly<T> = T extends (...args: never[]) => unknown
  ? T
  : T extends readonly (infer E)[]
    ? readonly DeepReadonly<E>[]
    : T extends object
      ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
      : T;

/** The options of `createHost` that are not in the config file: paths, code, functions. */
export interface HostCodeOptions {
  /** The project root: built-in tools are confined to it; plugins live in `<root>/plugins`. Default: cwd. */
  readonly root?: string;
  /**
   * The config file, relative to the root: it must exist when named. Default
   * `<root>/toolhost.config.json`, read when it exists. `false`: read no file, the config is only
   * what is given here.
   */
  readonly configFile?: string | false;
  /** The plugins folder, relative to the root (default `<root>/plugins`); `false` loads no plugins at all. */
  readonly pluginsDir?: string | false;
  /** The skills folder, relative to the root (default `<root>/skills`); `false`: no skills. */
  readonly skillsDir?: string | false;
  /** Set false to skip the `.toolhost/cache/` bundle and manifest cache. Default true. */
  readonly cache?: boolean;
  /** Watch the plugins folder and the config file, rebuilding on every change. Default false. */
  readonly watch?: boolean;
  /** Tools handed in through the API. */
  readonly customTools?: readonly ToolDefinition[];
  /** Host-wide hooks. */
  readonly hooks?: readonly ToolHooks[];
  /**
   * Availability facts (environment, auth, config tree, context); replaces the config's `signals`
   * (default: from `signals` and `process.env`). Its `env` is also where granted variables are read.
   */
  readonly availability?: AvailabilityContext;
  /** How the MCP servers of `mcpServers` are connected: handshake timeout, reconnect backoff, diagnostics. */
  readonly mcp?: HostMcpOptions;
}

/** How the MCP servers of `mcpServers` are connected (their call timeout is `limits.mcpCallTimeoutMs`). */
export interface HostMcpOptions {
  /** Limit of the initialize handshake and of each `tools/list`, ms; default 15 000. */
  readonly connectTimeoutMs?: number;
  /** Reconnect delays: `initialMs`, doubled after each failure, at most `maxMs`; default 1 000 / 30 000. */
  readonly backoff?: { readonly initialMs: number; readonly maxMs: number };
  /** Diagnostics: connects, connect failures, deaths, reconnects, renamed tools. */
  readonly log?: (message: string) => void;
}
