import type { AvailabilityContext, ToolDefinition, ToolDiagnostic } from '@toolhost/plugin-sdk';
import type { CallLimits, SandboxLimits } from '../config/limits.js';
import type { ConfigIssue } from '../config/load.js';
import type { ToolhostConfig } from '../config/schema.js';
import type { BuiltinToolsOptions } from '../sources/builtin/types.js';
import type { PluginSettings } from '../sources/plugins/manager.js';
import type { RegistryDiagnostic, ToolHooks, ToolPolicy } from '../types.js';

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

/** How to create a host (`createHost`); each field overrides the config file's. */
export interface HostOptions {
  /** The project root: built-in tools are confined to it; plugins live in `<root>/plugins`. Default: cwd. */
  readonly root?: string;
  /** The config: a file path, or the config itself. Default `<root>/toolhost.config.json` (optional). */
  readonly config?: string | ToolhostConfig;
  /** Built-in tool options, or `false`; overrides the config's `builtins`. */
  readonly builtins?: Omit<BuiltinToolsOptions, 'root' | 'controlPaths' | 'callTimeoutMs'> | false;
  /** Allow/deny policy; `allow` overrides the config's, `deny` adds to it. */
  readonly policy?: ToolPolicy;
  /** Tools handed in through the API. */
  readonly customTools?: readonly ToolDefinition[];
  /** Host-wide hooks. */
  readonly hooks?: readonly ToolHooks[];
  /** Availability facts; overrides the config's `signals` (default: from config and `process.env`). */
  readonly availability?: AvailabilityContext;
  /** Per-call limits; override the config's. */
  readonly limits?: Partial<CallLimits>;
  /** Plugin options, or `false` for no plugins at all. */
  readonly plugins?: PluginsOptions | false;
  /** Watch the plugins folder and the config file, rebuilding on every change. Default false. */
  readonly watch?: boolean;
  /** How the MCP servers of `mcpServers` are bridged: call timeout, reconnect backoff, diagnostics. */
  readonly mcp?: HostMcpOptions;
}

/** How plugins are found and run; each field overrides the config file. */
export interface PluginsOptions {
  /** Default `<root>/plugins`. */
  readonly dir?: string;
  /**
   * `process` (default): isolates live in a supervised executor process, so a plugin that crashes
   * V8 cannot take the host down. `inline`: isolates in this process — faster calls, no such
   * protection, and the host must run with `--no-node-snapshot`.
   */
  readonly sandbox?: 'process' | 'inline';
  /** `plugins.<id>` settings: enabled, config, grants, limits, hook scope. */
  readonly settings?: Readonly<Record<string, PluginSettings>>;
  /** Default sandbox limits for every plugin. */
  readonly limits?: Partial<SandboxLimits>;
  /** Set false to skip the `.toolhost/cache/` bundle and manifest cache. */
  readonly cache?: boolean;
}

/** How the MCP servers of `mcpServers` are bridged. */
export interface HostMcpOptions {
  /** Wall clock of one call to a bridged server, ms; overrides `limits.mcpCallTimeoutMs`. */
  readonly callTimeoutMs?: number;
  /** Limit of the initialize handshake and of each `tools/list`, ms; default 15 000. */
  readonly connectTimeoutMs?: number;
  /** Reconnect delays: `initialMs`, doubled after each failure, at most `maxMs`; default 1 000 / 30 000. */
  readonly backoff?: { readonly initialMs: number; readonly maxMs: number };
  /** Diagnostics: connects, connect failures, deaths, reconnects, renamed tools. */
  readonly log?: (message: string) => void;
}
