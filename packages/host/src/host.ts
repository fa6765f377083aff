import type { AvailabilityContext, ToolDefinition, ToolPlan } from '@toolhost/plugin-sdk';
import { type BuiltinToolsOptions, createBuiltinTools } from './builtins/index.js';
import { HookSet } from './hooks.js';
import { inProcessTool } from './in-process.js';
import { planRegistry } from './plan.js';
import { loadPlugins, type PluginReport, type PluginSettings } from './plugins/manager.js';
import { buildRegistry } from './registry.js';
import { createSandbox } from './sandbox/create.js';
import type { Sandbox, SandboxLimits } from './sandbox/types.js';
import { type HostSnapshot, Session, type SessionOptions } from './session.js';
import type {
  Disposer,
  RegisteredTool,
  Registry,
  RegistryDiagnostic,
  ToolHooks,
  ToolPolicy,
  ToolSource,
} from './types.js';
import { type CallLimits, DEFAULT_LIMITS } from './wrapper.js';

/** What changed between two registry versions. */
export interface RegistryChange {
  readonly version: number;
  readonly added: readonly string[];
  readonly removed: readonly string[];
  /** Same name, different descriptor or executor. */
  readonly changed: readonly string[];
  readonly diagnostics: readonly RegistryDiagnostic[];
}

export type ChangeListener = (change: RegistryChange) => void;

export interface HostOptions {
  /** The workspace root the built-in tools are confined to; default: the current directory. */
  readonly root?: string;
  /** Built-in tool options, or `false` to leave them out. */
  readonly builtins?: Omit<BuiltinToolsOptions, 'root'> | false;
  /** Allow/deny policy. */
  readonly policy?: ToolPolicy;
  /** Tools handed in through the API. */
  readonly customTools?: readonly ToolDefinition[];
  /** Host-wide hooks. */
  readonly hooks?: readonly ToolHooks[];
  /** Availability facts: auth providers present, config, env (default: `process.env`). */
  readonly availability?: AvailabilityContext;
  /** Per-call limits. */
  readonly limits?: Partial<CallLimits>;
  /** Sandboxed plugins from `<root>/plugins/`, or `false` for none. */
  readonly plugins?: PluginsOptions | false;
}

/** How plugins are found and run. */
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

function sameTool(a: RegisteredTool, b: RegisteredTool): boolean {
  return a.descriptor === b.descriptor || JSON.stringify(a.descriptor) === JSON.stringify(b.descriptor);
}

/**
 * The host: owns the sources, rebuilds the whole Map on every change and swaps it in atomically,
 * and hands out sessions that read the current state at each call.
 */
export class ToolHost {
  readonly #builtins: readonly RegisteredTool[];
  readonly #custom = new Map<symbol, RegisteredTool>();
  readonly #sources = new Map<string, ToolSource>();
  readonly #hooks = new HookSet();
  readonly #listeners = new Set<ChangeListener>();
  #policy: ToolPolicy;
  #availability: AvailabilityContext;
  readonly #limits: CallLimits;
  readonly #root: string;
  #sandbox: Sandbox | undefined;
  #pluginReports: readonly PluginReport[] = [];
  #pluginHookDisposers: (() => void)[] = [];
  #snapshot: HostSnapshot;

  constructor(options: HostOptions = {}) {
    const root = options.root ?? process.cwd();
    this.#root = root;
    // Disabled built-ins are still created, so policy can record them as `policy-denied`.
    this.#builtins = createBuiltinTools({ ...(options.builtins === false ? {} : options.builtins), root });
    this.#policy = { ...options.policy, ...(options.builtins === false ? { builtins: false } : {}) };
    this.#availability = options.availability ?? { env: process.env };
    this.#limits = { ...DEFAULT_LIMITS, ...options.limits };
    for (const hooks of options.hooks ?? []) this.#hooks.add(hooks);
    for (const definition of options.customTools ?? []) {
      this.#custom.set(Symbol(definition.name), inProcessTool(definition, { source: 'custom' }));
    }
    this.#snapshot = this.#build(0);
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

  session(options?: SessionOptions): Session {
    return new Session(() => this.#snapshot, options);
  }

  /** Adds a custom tool; the Map is rebuilt. The disposer removes it (and rebuilds). */
  addTool(definition: ToolDefinition): Disposer {
    const key = Symbol(definition.name);
    this.#custom.set(key, inProcessTool(definition, { source: 'custom' }));
    this.rebuild();
    return () => {
      if (this.#custom.delete(key)) this.rebuild();
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

  /** Replaces (or adds) a plugin or MCP source, keyed by kind and id; the Map is rebuilt. */
  setSource(source: ToolSource): void {
    this.setSources([source]);
  }

  /** Replaces several sources with one rebuild. */
  setSources(sources: readonly ToolSource[]): void {
    for (const source of sources) this.#sources.set(`${source.kind}:${source.id}`, source);
    this.rebuild();
  }

  /** The reports of the last plugin load: status and diagnostics of each plugin. */
  get plugins(): readonly PluginReport[] {
    return this.#pluginReports;
  }

  /** The sandbox plugin code runs in, once a plugin was loaded. */
  get sandbox(): Sandbox | undefined {
    return this.#sandbox;
  }

  /** Discovers, bundles and describes the plugins, then rebuilds the Map once. */
  async loadPlugins(options: PluginsOptions = {}): Promise<readonly PluginReport[]> {
    this.#sandbox ??= createSandbox(options.sandbox ?? 'process');
    const loads = await loadPlugins({
      root: this.#root,
      ...(options.dir === undefined ? {} : { pluginsDir: options.dir }),
      sandbox: this.#sandbox,
      ...(options.settings === undefined ? {} : { settings: options.settings }),
      ...(options.limits === undefined ? {} : { defaultLimits: options.limits }),
      ...(options.cache === undefined ? {} : { cache: options.cache }),
      env: (this.#availability.env ?? process.env) as Record<string, string | undefined>,
    });
    for (const dispose of this.#pluginHookDisposers) dispose();
    this.#pluginHookDisposers = loads.flatMap((load) =>
      load.hooks === undefined ? [] : [this.#hooks.add(load.hooks)],
    );
    for (const key of [...this.#sources.keys()]) if (key.startsWith('plugin:')) this.#sources.delete(key);
    this.#pluginReports = loads.map((load) => load.report);
    const enabled = loads.filter((load) => load.report.status === 'loaded').map((load) => load.report.id);
    this.#availability = { ...this.#availability, enabledPlugins: enabled };
    this.setSources(loads.map((load) => load.source));
    return this.#pluginReports;
  }

  /** Disposes every isolate and the executor process. */
  async close(): Promise<void> {
    const sandbox = this.#sandbox;
    this.#sandbox = undefined;
    await sandbox?.close();
  }

  removeSource(kind: ToolSource['kind'], id: string): void {
    if (this.#sources.delete(`${kind}:${id}`)) this.rebuild();
  }

  setPolicy(policy: ToolPolicy): void {
    this.#policy = policy;
    this.rebuild();
  }

  setAvailability(availability: AvailabilityContext): void {
    this.#availability = availability;
    this.rebuild();
  }

  /** Listens for rebuilds; the disposer stops listening. */
  onChange(listener: ChangeListener): Disposer {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Rebuilds the whole Map from every source and swaps it in; listeners get the diff. */
  rebuild(): RegistryChange {
    const previous = this.#snapshot;
    this.#snapshot = this.#build(previous.version + 1);
    const before = previous.registry.tools;
    const after = this.#snapshot.registry.tools;
    const change: RegistryChange = {
      version: this.#snapshot.version,
      added: [...after.keys()].filter((name) => !before.has(name)),
      removed: [...before.keys()].filter((name) => !after.has(name)),
      changed: [...after]
        .filter(([name, tool]) => {
          const old = before.get(name);
          return old !== undefined && !sameTool(old, tool);
        })
        .map(([name]) => name),
      diagnostics: this.#snapshot.registry.diagnostics,
    };
    for (const listener of [...this.#listeners]) {
      try {
        listener(change);
      } catch {
        // A listener's fault must not stop the swap or the other listeners.
      }
    }
    return change;
  }

  #build(version: number): HostSnapshot {
    const sources: ToolSource[] = [
      { kind: 'builtin', id: 'builtin', tools: this.#builtins },
      ...this.#sources.values(),
      { kind: 'custom', id: 'custom', tools: [...this.#custom.values()] },
    ];
    return {
      version,
      registry: buildRegistry(sources, this.#policy),
      policy: this.#policy,
      availability: this.#availability,
      limits: this.#limits,
      hooks: this.#hooks.snapshot(),
    };
  }
}

/** Creates a host with built-in, custom and (when `plugins` is given) sandboxed plugin tools. */
export async function createHost(options: HostOptions = {}): Promise<ToolHost> {
  const host = new ToolHost(options);
  if (options.plugins !== false && options.plugins !== undefined) await host.loadPlugins(options.plugins);
  return host;
}
