import type {
  CallReply,
  CallRequest,
  CapabilityReply,
  DescribeReply,
  HookReply,
  HookRequest,
} from '@toolhost/plugin-sdk/protocol';
import { asCancellation, type Cancellation, CancelSource } from '../util/cancel.js';
import { messageOf } from '../util/errors.js';
import { withoutHostPaths } from '../util/host-paths.js';
import { processMemory } from '../util/memory.js';
import { sleepUnlessAborted } from '../util/sleep.js';
import { type CallHandlers, IsolatePool, type IsolatePoolOptions } from './isolate-pool.js';
import { CallLogGate, type CallLogOptions, DEFAULT_LOG_LIMITS, LogWindows } from './log-budget.js';
import type { IsolateAnswer, IsolateOutcome } from './plugin-isolate.js';
import { loadPrelude } from './prelude.js';
import { liveScriptIsolates, runCode } from './script-runner.js';
import type {
  CallSinks,
  CapabilityRunner,
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

function parseData(json: string): unknown {
  if (json === '') return undefined;
  try {
    return JSON.parse(json);
  } catch {
    return json;
  }
}

/**
 * `ctx.sleep` (and every plugin timer) runs on a host timer that dies with the call — when it is
 * aborted, and when it ends (`CallHandlers.end`): a sleep pending at its end never resolves.
 */
function sleepFor(args: unknown, signal: AbortSignal): Promise<void> {
  const ms = Number((args as { ms?: unknown } | null)?.ms);
  if (!Number.isFinite(ms) || ms < 0)
    return Promise.reject(new Error('ctx.sleep(ms) needs a non-negative number'));
  return sleepUnlessAborted(ms, signal);
}

/** The `code` plugin code reads on a failed capability request (see `CapabilityError.pluginCode`). */
function pluginCodeOf(error: unknown): { code?: string } {
  const code = (error as { pluginCode?: unknown } | null)?.pluginCode;
  return typeof code === 'string' ? { code } : {};
}

/**
 * Turns host-side sinks and a capability runner into the handlers the isolate pool calls. Log
 * lines pass the call's {@link CallLogGate} (made on the first line: most calls log none) before
 * their data is parsed; when the call ends, a marker line says what the gate dropped.
 */
export function callHandlers(
  sinks: CallSinks,
  capabilities: CapabilityRunner | undefined,
  cancel: Cancellation,
  logs: CallLogOptions = { limits: DEFAULT_LOG_LIMITS },
): CallHandlers {
  let gate: CallLogGate | undefined;
  /** Aborted when the call ends; made on the call's first sleep, as most calls never sleep. */
  let ended: AbortController | undefined;
  let sleepSignal: AbortSignal | undefined;
  const signalForSleep = () => {
    if (sleepSignal === undefined) {
      ended = new AbortController();
      sleepSignal = AbortSignal.any([cancel.signal, ended.signal]);
    }
    return sleepSignal;
  };
  return {
    end: () => {
      ended?.abort();
      const marker = gate?.marker();
      if (marker !== undefined) sinks.log('warn', marker, undefined);
    },
    log: (level, message, data) => {
      gate ??= new CallLogGate(logs);
      const line = gate.admit(message, data);
      if (line !== undefined) sinks.log(level, line.message, parseData(line.dataJson));
    },
    progress: (done, total, message) =>
      sinks.progress(done, total < 0 ? undefined : total, message === '' ? undefined : message),
    request: async (capability, argsJson) => {
      let reply: CapabilityReply;
      try {
        if (capability === 'sleep') {
          await sleepFor(JSON.parse(argsJson), signalForSleep());
          return JSON.stringify({ ok: true, value: null });
        }
        if (capabilities === undefined)
          throw new Error(`ctx capability "${capability}" is not available in hooks`);
        reply = { ok: true, value: await capabilities(capability, JSON.parse(argsJson), cancel.signal) };
      } catch (error) {
        const code = pluginCodeOf(error);
        // A capability's own errors are worded for plugins; anything else may be Node's, with a host path.
        const text = code.code === undefined ? withoutHostPaths(messageOf(error)) : messageOf(error);
        reply = { ok: false, error: text, ...code };
      }
      return JSON.stringify(reply);
    },
  };
}

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

  unload(pluginId: string, version: number): void {
    const gone = this.#versions.release(pluginId, version);
    if (gone !== undefined) this.#pool.unload(gone.key);
  }

  call(
    pluginId: string,
    version: number,
    request: CallRequest,
    capabilities: CapabilityRunner,
    sinks: CallSinks,
    cancel: Cancellation | AbortSignal,
  ): Promise<SandboxOutcome<CallReply>> {
    const cancellation = asCancellation(cancel);
    return settled(
      this.#pool.call(
        versionKey(pluginId, version),
        request,
        callHandlers(sinks, capabilities, cancellation, this.#logsOf(pluginId, request.logs)),
        cancellation,
      ),
    );
  }

  hook(
    pluginId: string,
    version: number,
    request: HookRequest,
    sinks: CallSinks,
  ): Promise<SandboxOutcome<HookReply>> {
    return settled(
      this.#pool.hook(
        versionKey(pluginId, version),
        request,
        callHandlers(sinks, undefined, new CancelSource(), this.#logsOf(pluginId, request.logs)),
      ),
    );
  }

  /** A call's log caps (its request's, else the defaults) and its plugin's window. */
  #logsOf(pluginId: string, limits: CallLogOptions['limits'] | undefined): CallLogOptions {
    return {
      limits: limits ?? DEFAULT_LOG_LIMITS,
      plugin: { id: pluginId, window: this.#logWindows.of(pluginId) },
    };
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
