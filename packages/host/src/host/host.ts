import * as path from 'node:path';
import type { AvailabilityContext, ToolDefinition, ToolDiagnostic, ToolPlan } from '@toolhost/plugin-sdk';
import { ConfigError, type ConfigIssue, loadConfigFile, parseConfig } from '../config/load.js';
import type { ToolhostConfig } from '../config/schema.js';
import { type HostSnapshot, Session, type SessionOptions } from '../core/dispatch/session.js';
import { planRegistry } from '../core/filter/plan.js';
import { buildRegistry } from '../core/register/registry.js';
import { HookSet } from '../core/wrap/hooks.js';
import type { CallLimits } from '../core/wrap/wrapper.js';
import { createSandbox } from '../sandbox/create.js';
import type { Sandbox, SandboxCrash, SandboxLimits } from '../sandbox/types.js';
import { type BuiltinToolsOptions, createBuiltinTools } from '../sources/builtin/index.js';
import { inProcessTool } from '../sources/in-process.js';
import {
  McpBridge,
  type McpBridgeOptions,
  type McpServerConfig,
  type McpServerStatus,
} from '../sources/mcp/bridge.js';
import { LeaseCounts, type MapHold } from '../sources/plugins/holds.js';
import type { PluginLoad, PluginReport, PluginSettings } from '../sources/plugins/manager.js';
import { PluginSet } from '../sources/plugins/plugin-set.js';
import type {
  Disposer,
  RegisteredTool,
  Registry,
  RegistryDiagnostic,
  ToolHooks,
  ToolPolicy,
  ToolSource,
} from '../types.js';
import { AsyncMutex } from '../util/lock.js';
import { type EffectiveSettings, effectiveSettings } from './settings.js';
import { type ProjectWatcher, watchProject } from './watch.js';

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
  /** What set off the rebuild: `config`, `plugins:<id>,…`, `api`, `reload`. */
  readonly cause: string;
  /** From the start of the rebuild (bundling included) to the swap, ms. */
  readonly durationMs: number;
}

/** Something went wrong outside any call: an invalid config file, a watcher error. */
export type HostError =
  | { readonly kind: 'config'; readonly issues: readonly ConfigIssue[]; readonly message: string }
  | { readonly kind: 'watch'; readonly message: string }
  | { readonly kind: 'load'; readonly message: string };

export type ChangeListener = (change: HostChange) => void;
export type ErrorListener = (error: HostError) => void;

export interface HostOptions {
  /** The project root: built-in tools are confined to it; plugins live in `<root>/plugins`. Default: cwd. */
  readonly root?: string;
  /** The config: a file path, or the config itself. Default `<root>/toolhost.config.json` (optional). */
  readonly config?: string | ToolhostConfig;
  /** Built-in tool options, or `false`; overrides the config's `builtins`. */
  readonly builtins?: Omit<BuiltinToolsOptions, 'root'> | false;
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
  readonly mcp?: Omit<McpBridgeOptions, 'onChange' | 'cwd' | 'callTimeout'> & {
    /** Wall clock of one call to a bridged server, ms; overrides `limits.mcpCallTimeoutMs`. */
    readonly callTimeoutMs?: number;
  };
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

/** How long `close()` waits for calls in flight. */
const DRAIN_MS = 5_000;

/** One entry per tool name of a plan: the visible entry when there is one. */
function planIndex(
  plan: ToolPlan,
): Map<string, { visible: boolean; json: string; diagnostics: readonly ToolDiagnostic[] }> {
  const index = new Map<string, { visible: boolean; json: string; diagnostics: readonly ToolDiagnostic[] }>();
  for (const entry of plan.hidden) {
    if (!index.has(entry.descriptor.name)) {
      index.set(entry.descriptor.name, {
        visible: false,
        json: JSON.stringify(entry.descriptor),
        diagnostics: entry.diagnostics,
      });
    }
  }
  for (const entry of plan.visible) {
    index.set(entry.descriptor.name, {
      visible: true,
      json: JSON.stringify(entry.descriptor),
      diagnostics: [],
    });
  }
  return index;
}

function diffPlans(before: ToolPlan, after: ToolPlan) {
  const old = planIndex(before);
  const now = planIndex(after);
  return {
    added: [...now.keys()].filter((name) => !old.has(name)),
    removed: [...old.keys()].filter((name) => !now.has(name)),
    changed: [...now]
      .filter(([name, e]) => old.has(name) && old.get(name)?.json !== e.json)
      .map(([name]) => name),
    newlyHidden: [...now]
      .filter(([name, e]) => !e.visible && old.get(name)?.visible === true)
      .map(([name, e]) => ({ name, diagnostics: e.diagnostics })),
    newlyVisible: [...now]
      .filter(([name, e]) => e.visible && old.get(name)?.visible !== true)
      .map(([name]) => name),
  };
}

/**
 * The host: owns the sources, rebuilds the whole Map on every change and swaps it in atomically,
 * and hands out sessions that read the current state at each call. Calls in flight finish on the
 * Map (and plugin isolate) they started with.
 */
export class ToolHost {
  readonly #root: string;
  #options: HostOptions;
  readonly #configFile: string | undefined;
  readonly #custom = new Map<symbol, RegisteredTool>();
  readonly #sources = new Map<string, ToolSource>();
  readonly #hooks = new HookSet();
  readonly #changeListeners = new Set<ChangeListener>();
  readonly #errorListeners = new Set<ErrorListener>();
  readonly #refreshLock = new AsyncMutex();
  #config: ToolhostConfig;
  #settings: EffectiveSettings;
  #builtins: readonly RegisteredTool[];
  #pluginSet: PluginSet | undefined;
  #sandbox: Sandbox | undefined;
  #pluginLoads: readonly PluginLoad[] = [];
  #pluginHookDisposers: Disposer[] = [];
  /** Keeps plugin versions loaded while a Map that holds their tools may still run a call. */
  readonly #leases = new LeaseCounts();
  #hold: MapHold | undefined;
  #mcp: McpBridge | undefined;
  #watcher: ProjectWatcher | undefined;
  #inFlight = 0;
  #drained: (() => void) | undefined;
  #closed = false;
  #configFound: boolean;
  #snapshot: HostSnapshot;

  /** Use `createHost`; the constructor takes an already validated config. */
  constructor(
    options: HostOptions,
    config: ToolhostConfig,
    configFile: string | undefined,
    configFound = true,
  ) {
    this.#configFound = configFound;
    this.#root = path.resolve(options.root ?? process.cwd());
    this.#options = options;
    this.#configFile = configFile;
    this.#config = config;
    this.#settings = this.#settle(config);
    this.#builtins = this.#createBuiltins();
    for (const hooks of options.hooks ?? []) this.#hooks.add(hooks);
    for (const definition of options.customTools ?? []) {
      this.#custom.set(Symbol(definition.name), inProcessTool(definition, { source: 'custom' }));
    }
    this.#snapshot = this.#build(0);
  }

  #settle(config: ToolhostConfig): EffectiveSettings {
    const plugins = this.#options.plugins === false ? undefined : this.#options.plugins;
    return effectiveSettings(
      config,
      {
        ...(this.#options.builtins === undefined ? {} : { builtins: this.#options.builtins }),
        ...(this.#options.policy === undefined ? {} : { policy: this.#options.policy }),
        ...(this.#options.availability === undefined ? {} : { availability: this.#options.availability }),
        ...(this.#options.limits === undefined ? {} : { limits: this.#options.limits }),
        ...(plugins?.settings === undefined ? {} : { pluginSettings: plugins.settings }),
        ...(plugins?.limits === undefined ? {} : { pluginLimits: plugins.limits }),
        ...(this.#options.mcp?.callTimeoutMs === undefined
          ? {}
          : { mcpCallTimeoutMs: this.#options.mcp.callTimeoutMs }),
      },
      process.env,
    );
  }

  /**
   * Disabled built-ins are still created, so policy can record them as `policy-denied`. They are
   * told where this host's control files are (the config in force, the plugins folder), to keep
   * them closed.
   */
  #createBuiltins(): RegisteredTool[] {
    const builtins = this.#settings.builtins;
    const plugins = this.#options.plugins;
    const controlPaths = {
      pluginsDir: path.resolve(
        (plugins === false ? undefined : plugins?.dir) ?? path.join(this.#root, 'plugins'),
      ),
      ...(this.#configFile === undefined ? {} : { configFile: this.#configFile }),
    };
    return createBuiltinTools({
      ...(builtins === false ? {} : builtins),
      root: this.#root,
      controlPaths,
      callTimeoutMs: this.#settings.limits.timeoutMs,
    });
  }

  get root(): string {
    return this.#root;
  }

  /** The config in force (the last one that validated). */
  get config(): ToolhostConfig {
    return this.#config;
  }

  /** The current state; sessions read it at the start of each call. */
  snapshot(): HostSnapshot {
    return this.#snapshot;
  }

  get version(): number {
    return this.#snapshot.version;
  }

  get registry(): Registry {
    return this.#snapshot.registry;
  }

  /** The plan without any session context. */
  plan(): ToolPlan {
    return planRegistry(this.#snapshot.registry, this.#snapshot.availability);
  }

  /** A session; the config's `signals.context` reaches it through each snapshot, so reloads apply. */
  session(options?: SessionOptions): Session {
    return new Session(() => this.#snapshot, options);
  }

  /** The status and diagnostics of each plugin after the last load. */
  get plugins(): readonly PluginReport[] {
    return this.#pluginLoads.map((load) => load.report);
  }

  /** Where each bridged MCP server stands (connected, connecting, unavailable and why). */
  get mcpServers(): readonly McpServerStatus[] {
    return this.#mcp?.status() ?? [];
  }

  /**
   * Connects, disconnects or reconnects the servers of `mcpServers` to match the config; resolves
   * once each new server's first attempt is over (a server that is down is hidden, not fatal).
   */
  async syncMcpServers(): Promise<void> {
    const servers = (this.#config.mcpServers ?? {}) as Record<string, McpServerConfig>;
    if (this.#closed || (this.#mcp === undefined && Object.keys(servers).length === 0)) return;
    const { callTimeoutMs: _code, ...mcpOptions } = this.#options.mcp ?? {};
    const callTimeout = this.#settings.limitsTable.mcpCall;
    this.#mcp?.setCallTimeout(callTimeout);
    this.#mcp ??= new McpBridge({
      ...mcpOptions,
      callTimeout,
      cwd: this.#root,
      // A server that connects, dies or changes its tool list: the whole Map is rebuilt.
      onChange: () => {
        if (!this.#closed) this.#swap('mcp', performance.now());
      },
    });
    await this.#mcp.update(servers);
  }

  /** The sandbox plugin code runs in, once plugins were loaded. */
  get sandbox(): Sandbox | undefined {
    return this.#sandbox;
  }

  /** Adds a custom tool; the Map is rebuilt. The disposer removes it (and rebuilds). */
  addTool(definition: ToolDefinition): Disposer {
    const key = Symbol(definition.name);
    this.#custom.set(key, inProcessTool(definition, { source: 'custom' }));
    this.#swap('api', performance.now());
    return () => {
      if (this.#custom.delete(key)) this.#swap('api', performance.now());
    };
  }

  /** Adds host-wide hooks; they apply to the next call of every session. */
  addHooks(hooks: ToolHooks): Disposer {
    const dispose = this.#hooks.add(hooks);
    this.#snapshot = { ...this.#snapshot, hooks: this.#hooks.snapshot() };
    return () => {
      dispose();
      this.#snapshot = { ...this.#snapshot, hooks: this.#hooks.snapshot() };
    };
  }

  /** Replaces (or adds) sources keyed by kind and id (MCP servers, or plugins from elsewhere), with one rebuild. */
  setSources(sources: readonly ToolSource[]): void {
    for (const source of sources) this.#sources.set(`${source.kind}:${source.id}`, source);
    this.#swap('api', performance.now());
  }

  setSource(source: ToolSource): void {
    this.setSources([source]);
  }

  removeSource(kind: ToolSource['kind'], id: string): void {
    if (this.#sources.delete(`${kind}:${id}`)) this.#swap('api', performance.now());
  }

  /** Replaces the policy given in code (the config's still applies beneath it). */
  setPolicy(policy: ToolPolicy): void {
    this.#options = { ...this.#options, policy };
    this.#settings = this.#settle(this.#config);
    this.#swap('api', performance.now());
  }

  setAvailability(availability: AvailabilityContext): void {
    this.#options = { ...this.#options, availability };
    this.#settings = this.#settle(this.#config);
    this.#swap('api', performance.now());
  }

  /** Listens for swaps; the disposer stops listening. */
  on(event: 'change', listener: ChangeListener): Disposer;
  on(event: 'error', listener: ErrorListener): Disposer;
  on(event: 'change' | 'error', listener: ChangeListener | ErrorListener): Disposer {
    const set = (event === 'change' ? this.#changeListeners : this.#errorListeners) as Set<typeof listener>;
    set.add(listener);
    return () => set.delete(listener);
  }

  /** Same as `on('change', listener)`. */
  onChange(listener: ChangeListener): Disposer {
    return this.on('change', listener);
  }

  /**
   * Re-reads the config file and reloads every plugin, then swaps in a new Map. An invalid config
   * is reported (`error` event, and in the result) and the last good one stays in force.
   */
  async reload(): Promise<HostChange | HostError> {
    return this.#refresh({ config: true, plugins: undefined }, 'reload');
  }

  /** Loads the plugins (all of them, or those in `only`) and swaps in a new Map. */
  async loadPlugins(only?: ReadonlySet<string>): Promise<HostChange> {
    return this.#refreshLock.run(() =>
      this.#loadPlugins(only, only === undefined ? 'plugins' : `plugins:${[...only].join(',')}`),
    );
  }

  async #loadPlugins(
    only: ReadonlySet<string> | undefined,
    cause: string,
    started = performance.now(),
  ): Promise<HostChange> {
    const options = this.#options.plugins;
    if (options === false || this.#closed) return this.#swap(cause, started);
    const root = this.#root;
    this.#pluginSet ??= new PluginSet(
      options?.dir ?? path.join(root, 'plugins'),
      root,
      options?.cache ?? true,
    );
    if (this.#sandbox === undefined) {
      this.#sandbox = createSandbox(options?.sandbox ?? this.#config.sandbox ?? 'process');
      this.#sandbox.onCrash((crash) => this.#onCrash(crash));
    }
    const loads = await this.#pluginSet.refresh(
      {
        root,
        sandbox: this.#sandbox,
        settings: this.#settings.pluginSettings,
        limits: this.#settings.limitsTable,
        // Granted variables come from the real environment (or the one given in code), never from
        // the subset `signals.env` shows to availability checks.
        env: (this.#options.availability?.env ?? process.env) as Record<string, string | undefined>,
      },
      only,
      // An operator's reload gives quarantined plugins another chance.
      { liftQuarantine: cause === 'reload' },
    );
    this.#usePluginLoads(loads);
    return this.#swap(cause, started);
  }

  #usePluginLoads(loads: readonly PluginLoad[]): void {
    this.#pluginLoads = loads;
    for (const dispose of this.#pluginHookDisposers) dispose();
    this.#pluginHookDisposers = loads.flatMap((load) =>
      load.hooks === undefined ? [] : [this.#hooks.add(load.hooks)],
    );
  }

  /**
   * An executor death charged to a plugin; the third one quarantines it. Recorded at once, so no
   * call starts there after it (the tools refuse); the rebuild that hides the tools waits its turn.
   */
  #onCrash(crash: SandboxCrash): void {
    const set = this.#pluginSet;
    if (this.#closed || set === undefined || !set.recordCrash(crash)) return;
    void this.#refreshLock.run(() => {
      if (this.#closed) return;
      this.#usePluginLoads(set.loads());
      this.#swap(`quarantine:${crash.pluginId}`, performance.now());
    });
  }

  /** One refresh at a time: config first (it may change every plugin), then plugins, then the swap. */
  #refresh(
    what: { config: boolean; plugins: ReadonlySet<string> | undefined },
    cause: string,
  ): Promise<HostChange | HostError> {
    return this.#refreshLock
      .run(async () => {
        const started = performance.now();
        let only = what.plugins;
        if (what.config && this.#configFile !== undefined) {
          const loaded = await loadConfigFile(this.#configFile);
          // A config file that was in force and is now gone keeps its settings: silently falling back
          // to defaults would drop every deny rule. Restore the file (or restart) to change that.
          const outcome: typeof loaded =
            loaded.ok && !loaded.found && (this.#configFound || typeof this.#options.config === 'string')
              ? {
                  ok: false,
                  issues: [
                    {
                      file: this.#configFile,
                      path: '(root)',
                      message: 'the config file is gone; the last good config stays in force',
                    },
                  ],
                }
              : loaded;
          if (!outcome.ok) {
            const error: HostError = {
              kind: 'config',
              issues: outcome.issues,
              message: new ConfigError(outcome.issues).message,
            };
            this.#emitError(error);
            return error;
          }
          this.#config = outcome.config;
          this.#configFound = outcome.found;
          this.#settings = this.#settle(outcome.config);
          this.#builtins = this.#createBuiltins();
          only = undefined; // settings of any plugin may have changed
          await this.syncMcpServers();
        }
        return this.#loadPlugins(only, cause, started);
      })
      .catch((fault: unknown) => {
        // A refresh that fails outside any plugin (the plugins folder became unreadable, say) is
        // reported; the host keeps serving the Map it has. It never ends the process.
        const error: HostError = {
          kind: 'load',
          message: `rebuild (${cause}) failed: ${fault instanceof Error ? fault.message : String(fault)}`,
        };
        this.#emitError(error);
        return error;
      });
  }

  /** Builds a new Map from every source and swaps it in; listeners get the diff. */
  #swap(cause: string, started: number): HostChange {
    const before = this.plan();
    const previous = this.#snapshot;
    const replaced = this.#hold;
    this.#snapshot = this.#build(previous.version + 1);
    replaced?.replaced();
    const change: HostChange = {
      version: this.#snapshot.version,
      ...diffPlans(before, this.plan()),
      diagnostics: this.#snapshot.registry.diagnostics,
      cause,
      durationMs: performance.now() - started,
    };
    for (const listener of [...this.#changeListeners]) {
      try {
        listener(change);
      } catch {
        // A listener's fault must not stop the swap or the other listeners.
      }
    }
    return change;
  }

  /** Rebuilds the Map now (after something outside the host changed) and returns the diff. */
  rebuild(): HostChange {
    return this.#swap('api', performance.now());
  }

  #emitError(error: HostError): void {
    for (const listener of [...this.#errorListeners]) {
      try {
        listener(error);
      } catch {
        // As for change listeners.
      }
    }
  }

  #build(version: number): HostSnapshot {
    const pluginSources = this.#pluginLoads.map((load) => load.source);
    const enabledPlugins = this.#pluginLoads
      .filter((l) => l.report.status === 'loaded')
      .map((l) => l.report.id);
    const sources: ToolSource[] = [
      { kind: 'builtin', id: 'builtin', tools: this.#builtins },
      ...pluginSources,
      ...(this.#mcp?.sources() ?? []),
      ...this.#sources.values(),
      { kind: 'custom', id: 'custom', tools: [...this.#custom.values()] },
    ];
    const hold = this.#leases.hold(this.#pluginLoads);
    this.#hold = hold;
    return {
      version,
      registry: buildRegistry(sources, this.#settings.policy),
      policy: this.#settings.policy,
      availability: { ...this.#settings.availability, enabledPlugins },
      limits: this.#settings.limits,
      hooks: this.#hooks.snapshot(),
      track: () => this.#track(hold),
    };
  }

  /** A call admitted by the Map of `hold`: the host drains it before closing, the hold before unloading. */
  #track(hold: MapHold): () => void {
    this.#inFlight += 1;
    hold.enter();
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      hold.exit();
      this.#inFlight -= 1;
      if (this.#inFlight === 0) this.#drained?.();
    };
  }

  /** Starts watching the plugins folder and the config file; resolves once the watcher is ready. */
  async watch(): Promise<void> {
    if (this.#watcher !== undefined || this.#closed) return;
    const plugins = this.#options.plugins;
    const pluginsDir = (plugins === false ? undefined : plugins?.dir) ?? path.join(this.#root, 'plugins');
    this.#watcher = watchProject({
      pluginsDir,
      configFile: this.#configFile ?? path.join(this.#root, 'toolhost.config.json'),
      onBatch: (batch) => {
        const ids = [...batch.plugins];
        const cause = [batch.config ? 'config' : '', ids.length > 0 ? `plugins:${ids.join(',')}` : '']
          .filter(Boolean)
          .join(' ');
        void this.#refresh(
          { config: batch.config, plugins: batch.all ? undefined : batch.plugins },
          cause || 'plugins',
        );
      },
      onError: (error) => this.#emitError({ kind: 'watch', message: error.message }),
    });
    await this.#watcher.ready;
  }

  /**
   * Stops the watcher, waits (at most 5 s) for calls in flight, and disposes every isolate and the
   * executor process. Nothing it started keeps the process alive afterwards.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#watcher?.close();
    this.#watcher = undefined;
    if (this.#inFlight > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, DRAIN_MS);
        this.#drained = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    await this.#refreshLock.run(async () => {
      await this.#mcp?.close();
      await this.#pluginSet?.dispose();
      await this.#sandbox?.close();
    });
    this.#sandbox = undefined;
  }
}

async function readConfig(
  options: HostOptions,
  root: string,
): Promise<{ config: ToolhostConfig; file: string | undefined; found: boolean }> {
  if (typeof options.config === 'object') {
    const outcome = parseConfig(options.config, '(config object)');
    if (!outcome.ok) throw new ConfigError(outcome.issues);
    return { config: outcome.config, file: undefined, found: true };
  }
  const file = path.resolve(root, options.config ?? 'toolhost.config.json');
  const outcome = await loadConfigFile(file);
  if (!outcome.ok) throw new ConfigError(outcome.issues);
  if (!outcome.found && options.config !== undefined) {
    throw new ConfigError([{ file, path: '(root)', message: 'the config file does not exist' }]);
  }
  return { config: outcome.config, file, found: outcome.found };
}

/**
 * Creates a host: reads and validates the config (an invalid one is a `ConfigError` listing every
 * problem with its file and path: the host refuses to start), loads the plugins, and with
 * `watch: true` starts watching.
 */
export async function createHost(options: HostOptions = {}): Promise<ToolHost> {
  const root = path.resolve(options.root ?? process.cwd());
  const { config, file, found } = await readConfig(options, root);
  const host = new ToolHost({ ...options, root }, config, file, found);
  try {
    await host.syncMcpServers();
    if (options.plugins !== false) await host.loadPlugins();
    else if (host.mcpServers.length > 0) host.rebuild();
    if (options.watch === true) await host.watch();
  } catch (error) {
    // Nothing it started (MCP servers, the executor, watchers) outlives a host that did not start.
    await host.close();
    throw error;
  }
  return host;
}
