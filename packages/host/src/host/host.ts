import * as path from 'node:path';
import type { AvailabilityContext, ToolDefinition, ToolPlan } from '@toolhost/plugin-sdk';
import { isolateSettingsOf } from '../config/isolates.js';
import { layerConfig } from '../config/layer.js';
import { ConfigError, parseConfig } from '../config/load.js';
import { sandboxSettingOf } from '../config/sandbox.js';
import type { ToolhostConfig } from '../config/schema.js';
import { type ApprovalEvent, ApprovalQueue } from '../core/dispatch/approvals.js';
import { Session, type SessionOptions } from '../core/dispatch/session.js';
import type { Skill } from '../core/dispatch/skills.js';
import { HookSet } from '../core/wrap/hooks.js';
import type { Walls } from '../jail/index.js';
import { SharedSandbox } from '../sandbox/shared.js';
import type { IsolateStats } from '../sandbox/types.js';
import type { ApiSource } from '../sources/api.js';
import type { McpSource } from '../sources/mcp/source.js';
import type { McpServerStatus } from '../sources/mcp/types.js';
import type { PluginSource } from '../sources/plugins/source.js';
import type { PluginReport } from '../sources/plugins/types.js';
import type { SkillSource } from '../sources/skills/source.js';
import { startOtlp, type Telemetry } from '../telemetry/otlp.js';
import type { Disposer, RefreshReason, ToolHooks, ToolSource } from '../types.js';
import { type ConfigState, readStartConfig, rereadConfig } from './config-file.js';
import { checkInlineSandbox } from './inline-check.js';
import { registerInternals } from './internals.js';
import { checkJail } from './jail-check.js';
import { CODE_SOURCE, splitHostOptions } from './options.js';
import { ReloadPipeline } from './pipeline.js';
import { type EffectiveSettings, effectiveSettings } from './settings.js';
import { createSources, type ProjectPaths, projectPaths } from './sources.js';
import type {
  ChangeListener,
  ErrorListener,
  HostChange,
  HostCodeOptions,
  HostError,
  HostOptions,
  ToolhostConfigInput,
} from './types.js';
import type { ChangeBatch, ProjectWatcher } from './watch.js';

/** How long `close()` waits for calls in flight. */
const DRAIN_MS = 5_000;

/**
 * The host: its lifecycle (create, sessions, listeners, close) and the API that changes its tools.
 * Every change runs the reload pipeline (pipeline.ts), which rebuilds the whole Map from the
 * sources (sources.ts: built-in, code mode, skills, plugins, MCP, custom) and swaps it in at once;
 * sessions read the current state at each call, so calls in flight finish on the Map (and plugin
 * versions) they started with. Its plumbing (snapshot, registry, sandbox) is not part of it: this
 * repository reaches it through `internalsOf` (`@toolhost/host/internal`).
 */
export class ToolHost {
  /** The OpenTelemetry SDK config `telemetry.otlp` registered, if any. */
  #telemetry: Telemetry | undefined;
  readonly #code: HostCodeOptions;
  /** Where the plugins, skills and config file are: one resolution for the sources and the watcher. */
  readonly #paths: ProjectPaths;
  /** The config given in code, laid over the file's at every (re)load. */
  #codeConfig: ToolhostConfig;
  /** Availability facts given in code (`availability`, `setAvailability`); replace `signals`. */
  #availability: AvailabilityContext | undefined;
  #state: ConfigState;
  /** The config in force: the file's with the code's over it. */
  #config: ToolhostConfig;
  #settings: EffectiveSettings;
  readonly #hooks = new HookSet();
  readonly #api: ApiSource;
  readonly #plugins: PluginSource | undefined;
  readonly #mcp: McpSource;
  readonly #skills: SkillSource | undefined;
  /** Where plugins' and code-mode scripts' isolates live (the `sandbox` setting at first use). */
  readonly #sandbox: SharedSandbox;
  readonly #pipeline: ReloadPipeline;
  #watcher: ProjectWatcher | undefined;
  #closed = false;
  /** Calls waiting for a person's approval, from every session; answer them here (see approvals.ts). */
  readonly approvals = new ApprovalQueue();

  /**
   * Use `createHost`; the constructor takes already validated options: the code-only ones, the
   * config given in code, and the config file's state.
   */
  constructor(
    code: HostCodeOptions,
    codeConfig: ToolhostConfig,
    state: ConfigState,
    configFile: string | undefined,
  ) {
    this.#code = code;
    this.#paths = projectPaths(path.resolve(code.root ?? process.cwd()), code, configFile);
    this.#codeConfig = codeConfig;
    this.#availability = code.availability;
    this.#state = state;
    this.#config = layerConfig(state.config, codeConfig);
    this.#sandbox = new SharedSandbox(() => ({
      ...sandboxSettingOf(this.#config),
      isolates: isolateSettingsOf(this.#config),
    }));
    this.#settings = this.#settle();
    for (const hooks of code.hooks ?? []) this.#hooks.add(hooks);
    const settings = (): EffectiveSettings => this.#settings;
    const sources = createSources({
      paths: this.#paths,
      code,
      config: () => this.#config,
      settings,
      availability: () => this.#availability,
      sandbox: this.#sandbox,
    });
    ({ plugins: this.#plugins, mcp: this.#mcp, skills: this.#skills, api: this.#api } = sources);
    this.#pipeline = new ReloadPipeline(
      sources.all,
      settings,
      () => this.#hooks.snapshot(),
      () => (this.#skills === undefined ? {} : { skills: this.#skills.catalog }),
    );
    // A source that changed on its own (a tool added in code, a server's list, a quarantine) is one
    // more run; the API's own change is swapped at once when nothing runs (`addTool` is synchronous).
    for (const source of sources.all) {
      const immediate = source === this.#api;
      source.onChange((cause) => {
        if (!this.#closed) void this.#pipeline.run({ cause, immediate });
      });
    }
    registerInternals(this, {
      snapshot: () => this.#pipeline.snapshot,
      sandbox: () => this.#sandbox.current,
      chargePluginCrash: (pluginId, message) => this.#plugins?.chargeCrash(pluginId, message) ?? false,
    });
  }

  get root(): string {
    return this.#paths.root;
  }

  /** The config in force: the config file's (the last one that validated) with the one given in code over it. */
  get config(): ToolhostConfig {
    return this.#config;
  }

  /** Increases with every swap of the Map (see `HostChange.version`). */
  get version(): number {
    return this.#pipeline.snapshot.version;
  }

  /** The plan without any session context. */
  plan(): ToolPlan {
    return this.#pipeline.plan;
  }

  /** A session; the config's `signals.context` reaches it through each snapshot, so reloads apply. */
  session(options?: SessionOptions): Session {
    return new Session(() => this.#pipeline.snapshot, options, this.approvals);
  }

  /** Every skill of the `skills/` folder, usable or hidden (`diagnostics` say why), in name order. */
  skills(): readonly Skill[] {
    return [...(this.#pipeline.snapshot.skills ?? new Map<string, Skill>()).values()];
  }

  /** The status and diagnostics of each plugin after the last load. */
  get plugins(): readonly PluginReport[] {
    return this.#plugins?.reports ?? [];
  }

  /** Where each bridged MCP server stands (connected, connecting, unavailable and why). */
  get mcpServers(): readonly McpServerStatus[] {
    return this.#mcp.status();
  }

  /** How many plugin isolates are live, when idle ones go, and how many went (see `isolates` in config). */
  async isolates(): Promise<IsolateStats> {
    const stats = await this.#sandbox.current?.isolateStats();
    return stats ?? { live: 0, ...isolateSettingsOf(this.#config), evicted: { idle: 0, cap: 0 }, scripts: 0 };
  }

  /**
   * The walls around plugin code and code-mode scripts: the isolate always, and whether the
   * executor process that holds the isolates is jailed (and if not, why).
   */
  get walls(): Walls {
    return this.#sandbox.walls;
  }

  /** Adds a custom tool; the Map is rebuilt. The disposer removes it (and rebuilds). */
  addTool(definition: ToolDefinition): Disposer {
    return this.#api.addTool(definition);
  }

  /** Adds host-wide hooks; they apply to the next call of every session. */
  addHooks(hooks: ToolHooks): Disposer {
    const dispose = this.#hooks.add(hooks);
    this.#pipeline.refreshHooks();
    return () => {
      dispose();
      this.#pipeline.refreshHooks();
    };
  }

  /** Replaces (or adds) sources keyed by kind and id (MCP servers, or plugins from elsewhere), with one rebuild. */
  setSources(sources: readonly ToolSource[]): void {
    this.#api.setSources(sources);
  }

  setSource(source: ToolSource): void {
    this.#api.setSources([source]);
  }

  removeSource(kind: ToolSource['kind'], id: string): void {
    this.#api.removeSource(kind, id);
  }

  /**
   * Replaces the `tools` given in code (`createHost({ tools })`), laid over the config file's as
   * at start: its `allow` replaces the file's, its `deny` adds to it. Invalid lists are a `ConfigError`.
   */
  setPolicy(tools: NonNullable<ToolhostConfigInput['tools']>): void {
    const outcome = parseConfig({ tools }, CODE_SOURCE);
    if (!outcome.ok) throw new ConfigError(outcome.issues);
    const { tools: _replaced, ...rest } = this.#codeConfig;
    this.#codeConfig = {
      ...rest,
      ...(outcome.config.tools === undefined ? {} : { tools: outcome.config.tools }),
    };
    this.#resettle();
  }

  /** Replaces the availability facts given in code (the config's `signals` no longer apply). */
  setAvailability(availability: AvailabilityContext): void {
    this.#availability = availability;
    this.#resettle();
  }

  #settle(): EffectiveSettings {
    return effectiveSettings(
      this.#config,
      this.#availability === undefined ? {} : { availability: this.#availability },
      process.env,
    );
  }

  #resettle(): void {
    this.#config = layerConfig(this.#state.config, this.#codeConfig);
    this.#settings = this.#settle();
    void this.#pipeline.run({ cause: 'api', immediate: true });
  }

  /** Listens for swaps, or for errors outside any call; the disposer stops listening. */
  on(event: 'change', listener: ChangeListener): Disposer;
  on(event: 'error', listener: ErrorListener): Disposer;
  /** Each approval asked and decided (who, what, how long it waited), from every session. */
  on(event: 'approval', listener: (event: ApprovalEvent) => void): Disposer;
  on(
    event: 'change' | 'error' | 'approval',
    listener: ChangeListener | ErrorListener | ((event: ApprovalEvent) => void),
  ): Disposer {
    if (event === 'approval') return this.approvals.on(listener as (event: ApprovalEvent) => void);
    return event === 'change'
      ? this.#pipeline.changes.add(listener as ChangeListener)
      : this.#pipeline.errors.add(listener as ErrorListener);
  }

  /** Same as `on('change', listener)`. */
  onChange(listener: ChangeListener): Disposer {
    return this.on('change', listener);
  }

  /**
   * Re-reads the config file and refreshes every source (quarantined plugins get another
   * chance), then swaps in a new Map. An invalid config is reported (`error` event, and in the
   * result) and the last good one stays in force.
   */
  reload(): Promise<HostChange | HostError> {
    return this.#run({ kind: 'reload' }, 'reload', true);
  }

  /** Runs the pipeline for `reason`, re-reading the config file first when `config` says so. */
  #run(reason: RefreshReason, cause: string, config: boolean) {
    const file = this.#paths.configFile;
    const settle =
      config && file !== undefined
        ? async () => {
            const state = await rereadConfig(file, this.#state, this.#code.configFile !== undefined);
            if ('kind' in state) return state;
            this.#state = state;
            this.#config = layerConfig(state.config, this.#codeConfig);
            this.#settings = this.#settle();
            return undefined;
          }
        : undefined;
    // A settings change reaches every source: any plugin's or server's settings may have changed.
    const widened = settle !== undefined && reason.kind === 'files' ? { kind: 'settings' as const } : reason;
    return this.#pipeline.run({ ...(settle === undefined ? {} : { settle }), reason: widened, cause });
  }

  /** Brings every source up for the first time (`createHost` calls it); a source that cannot start is a fault. */
  async start(): Promise<void> {
    const outcome = await this.#run({ kind: 'start' }, 'start', false);
    if ('kind' in outcome) throw new Error(outcome.message);
    const otlp = this.config.telemetry?.otlp;
    if (otlp !== undefined) this.#telemetry = await startOtlp(otlp);
    if (this.#code.watch === true) await this.watch();
  }

  /** Starts watching the plugins folder, the skills folder and the config file; resolves once the watcher is ready. */
  async watch(): Promise<void> {
    if (this.#watcher !== undefined || this.#closed) return;
    // The watcher, and chokidar under it, load with the first watch: a host that never watches
    // (the CLI's list and call, most embedders) does not import them.
    const { watchProject } = await import('./watch.js');
    if (this.#watcher !== undefined || this.#closed) return;
    const { pluginsDir, skillsDir, configFile, root } = this.#paths;
    this.#watcher = watchProject({
      pluginsDir,
      configFile: configFile ?? path.join(root, 'toolhost.config.json'),
      ...(this.#skills === undefined ? {} : { skillsDir }),
      onPluginEvent: (id) => this.#plugins?.touched(id),
      onBatch: (batch) => void this.#run(...runOf(batch), batch.config),
      onError: (error) => this.#pipeline.errors.emit({ kind: 'watch', message: error.message }),
    });
    await this.#watcher.ready;
  }

  /**
   * Stops the watcher, waits (at most 5 s) for calls in flight, and closes every source: isolates,
   * the executor process, MCP servers. Nothing it started keeps the process alive afterwards.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // New calls are refused from here; those already running are drained below.
    this.#pipeline.markClosed();
    await this.#watcher?.close();
    this.#watcher = undefined;
    await this.#pipeline.drain(DRAIN_MS);
    await this.#pipeline.close();
    await this.#sandbox.close();
    // Spans of the last calls are flushed to the collector before the host is gone.
    await this.#telemetry?.shutdown();
  }
}

/**
 * Creates a host: validates the options (the config file's keys by the config file's schema, and
 * the code-only ones), reads and validates the config file, lays the config given in code over it
 * (`layerConfig`), brings up its sources (plugins, MCP servers), and with `watch: true` starts
 * watching. Invalid options or an invalid file are a `ConfigError` listing every problem with
 * where it is (`createHost options` or the file) and its path: the host refuses to start.
 */
export async function createHost(options: HostOptions = {}): Promise<ToolHost> {
  const split = splitHostOptions(options);
  if ('issues' in split) throw new ConfigError(split.issues);
  const root = path.resolve(split.code.root ?? process.cwd());
  const { file, ...state } = await readStartConfig(split.code.configFile, root);
  if (split.code.pluginsDir !== false) {
    const { mode, jail } = sandboxSettingOf(layerConfig(state.config, split.config));
    checkInlineSandbox(mode);
    if (mode === 'process') checkJail(jail);
  }
  const host = new ToolHost({ ...split.code, root }, split.config, state, file);
  try {
    await host.start();
  } catch (error) {
    // Nothing it started (MCP servers, the executor, watchers) outlives a host that did not start.
    await host.close();
    throw error;
  }
  return host;
}

/**
 * What a batch of file events runs: every source on `all`, else the plugins and skills that
 * changed (a SKILL.md edit rebuilds no plugin); and its cause (`config`, `plugins:<id>,…`,
 * `skills:<name>,…`).
 */
function runOf(batch: ChangeBatch): [RefreshReason, string] {
  const plugins = [...batch.plugins];
  const skills = [...batch.skills];
  const cause = [
    batch.config ? 'config' : '',
    plugins.length > 0 ? `plugins:${plugins.join(',')}` : '',
    skills.length > 0 ? `skills:${skills.join(',')}` : '',
  ]
    .filter(Boolean)
    .join(' ');
  const reason: RefreshReason = batch.all
    ? { kind: 'settings' }
    : { kind: 'files', ids: batch.plugins, skills: batch.skills };
  return [reason, cause || 'plugins'];
}
