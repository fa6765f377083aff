import type { CallReply, DescribeReply, HookReply } from '@toolhost/plugin-sdk/protocol';
import { asCancellation, CancelSource } from '../util/cancel.js';
import { processMemory } from '../util/memory.js';
import { callHandlers, callLogs } from './call-handlers.js';
import { IsolatePool, type IsolatePoolOptions } from './isolate-pool.js';
import { LogWindows } from './log-budget.js';
import type { IsolateAnswer, IsolateOutcome } from './plugin-isolate.js';
import { loadPrelude } from './prelude.js';
import { liveScriptIsolates, runCode } from './script-runner.js';
import type {
  CodeOutcome,
  CodeRunOptions,
  IsolateSettings,
  IsolateStats,
  Sandbox,
  SandboxLimits,
  SandboxOutcome,
} from './types.js';
import { PluginVersions, versionKey } from './versions.js';
import { wallsOfPlacement } from './walls.js';

/** The sandbox interface answers with a promise; an answer the pool had at once becomes one here. */
function settled<R>(answer: IsolateAnswer<R>): Promise<IsolateOutcome<R>> {
  return answer instanceof Promise ? answer : Promise.resolve(answer);
}

/**
 * Isolates in the host process: the fastest path, but a plugin that makes V8 abort (the
 * catastrophic out-of-memory cases) takes the host down with it. Needs `--no-node-snapshot`.
 */
export class InlineSandbox implements Sandbox {
  readonly mode = 'inline';
  readonly walls = wallsOfPlacement({ mode: 'inline', jail: 'off' });
  readonly #pool: IsolatePool;
  readonly #versions = new PluginVersions();
  readonly #logWindows = new LogWindows();

  /** `options`: when idle isolates go (default `DEFAULT_ISOLATE_SETTINGS`), and the pool's clock. */
  constructor(options: IsolatePoolOptions = {}) {
    this.#pool = new IsolatePool(loadPrelude, options);
  }

  describe(
    bundle: string,
    configJson: string,
    limits: SandboxLimits,
  ): Promise<SandboxOutcome<DescribeReply>> {
    return this.#pool.describe(bundle, configJson, limits);
  }

  load(pluginId: string, bundle: string, limits: SandboxLimits): number {
    const { entry, created } = this.#versions.acquire(pluginId, bundle, limits);
    if (created) this.#pool.load(entry.key, bundle, limits);
    return entry.version;
  }

  /**
   * Serving begins (`warmForServing`): the prelude of the first plugin version is built and
   * snapshotted, and an isolate made for the first call (`IsolateSpare.ahead`), off that call's
   * path. Served with isolates inline, that call took 380-413 ms where the next took 3-5.
   */
  warm(): void {
    const first = this.#versions.live().next();
    if (first.done === true) return;
    const { bundle, limits } = first.value;
    this.#pool.spare.ahead(() => loadPrelude(bundle), limits);
  }

  /** The spare isolate: whether one is held, and the starts it served or missed (tests, diagnostics). */
  spares(): { held: boolean; served: number; missed: number } {
    return { held: this.#pool.spare.held, ...this.#pool.spare.counts };
  }

  unload(pluginId: string, version: number): void {
    const gone = this.#versions.release(pluginId, version);
    if (gone !== undefined) this.#pool.unload(gone.key);
  }

  call(
    ...[pluginId, version, request, capabilities, sinks, cancel]: Parameters<Sandbox['call']>
  ): Promise<SandboxOutcome<CallReply>> {
    const cancellation = asCancellation(cancel);
    return settled(
      this.#pool.call(
        versionKey(pluginId, version),
        request,
        callHandlers(sinks, capabilities, cancellation, callLogs(this.#logWindows, pluginId, request.logs)),
        cancellation,
      ),
    );
  }

  hook(
    ...[pluginId, version, request, sinks]: Parameters<Sandbox['hook']>
  ): Promise<SandboxOutcome<HookReply>> {
    return settled(
      this.#pool.hook(
        versionKey(pluginId, version),
        request,
        callHandlers(
          sinks,
          undefined,
          new CancelSource(),
          callLogs(this.#logWindows, pluginId, request.logs),
        ),
      ),
    );
  }

  /** The script's isolate is one of this process's: a V8 abort there ends the host. */
  runScript(source: string, options: CodeRunOptions): Promise<CodeOutcome> {
    return runCode(source, options);
  }

  /** Isolates here die with the host, so no crash is ever reported. */
  onCrash(): () => void {
    return () => {};
  }

  /** How calls got their replies: within their sync entry, or by waiting. */
  replyStats(): { inEntry: number; waited: number } {
    return this.#pool.replyStats();
  }

  async isolateCount(): Promise<number> {
    return this.#pool.liveIsolates;
  }

  async isolateStats(): Promise<IsolateStats> {
    return { ...this.#pool.stats(), scripts: liveScriptIsolates(), memory: processMemory() };
  }

  configureIsolates(settings: IsolateSettings): void {
    this.#pool.configure(settings);
  }

  async close(): Promise<void> {
    this.#pool.close();
  }
}
