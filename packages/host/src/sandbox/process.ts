import type { CallReply, DescribeReply, HookReply } from '@toolhost/plugin-sdk/protocol';
import { jailedPid, type Walls } from '../jail/index.js';
import { asCancellation } from '../util/cancel.js';
import { defaultPollMicros, HotLoop } from '../util/hot-loop.js';
import { residentBytesOf } from '../util/memory.js';
import { builtEntry } from '../util/package.js';
import { callLogs } from './call-handlers.js';
import { callRequestJson } from './call-request.js';
import type { Frame } from './channel.js';
import { CrashListeners, settleRequestsOf } from './executor-deaths.js';
import { handleFrame } from './executor-frames.js';
import { killExecutor, sendPrelude, startExecutor } from './executor-process.js';
import { type ExecutorPlacement, placementWhenNeeded, wallsOf } from './executor-spawn.js';
import { ExecutorWatch, silenceAllowedMs } from './executor-watch.js';
import type { ToExecutor } from './ipc.js';
import { LogWindows } from './log-budget.js';
import { preludeKindOf } from './prelude-kind.js';
import {
  abortPending,
  crashed,
  type Executor,
  newPending,
  notStarted,
  type Outcome,
  type Pending,
} from './process-requests.js';
import { type RequestAbout, type Requests, RetiredEvictions, runScriptThrough } from './process-runs.js';
import {
  type CodeOutcome,
  type CodeRunOptions,
  DEFAULT_ISOLATE_SETTINGS,
  type IsolateSettings,
  type IsolateStats,
  type ProcessSandboxOptions,
  type Sandbox,
  type SandboxCrash,
  type SandboxLimits,
  type SandboxOutcome,
} from './types.js';
import { PluginVersions, versionKey } from './versions.js';

/** The executor entry (always the built copy in dist). */
const executorEntry = () => builtEntry('sandbox/executor-main.js');

export type { ProcessSandboxOptions } from './types.js';

/**
 * Isolates in a supervised child process. A plugin that makes V8 abort (isolated-vm issues #457,
 * #527) kills only the child. Exactly the requests that were running there (started-mark.ts)
 * end with an `is_error` result naming the crash; requests it had not started, and requests
 * that arrive while it is down, go to the next process, which is started at once when there is
 * work. A death is charged to a plugin when only that plugin was running there; the host hears of
 * it through `onCrash`. Costs a round trip over the channel (`channel.ts`) per call. One process:
 * a second one (each call sent to the next, round robin) bought no throughput at 5,000 calls in
 * flight on a 2-core machine, where the host is the busier side, and made sequential calls slower.
 */
export class ProcessSandbox implements Sandbox {
  readonly mode = 'process';
  readonly #entry: string;
  readonly #startupMs: number;
  readonly #heartbeatMs: number;
  #executor: Executor | undefined;
  #generation = 0;
  #nextId = 1;
  readonly #pending = new Map<number, Pending>();
  readonly #versions = new PluginVersions();
  readonly #logWindows = new LogWindows();
  readonly #crashListeners = new CrashListeners();
  /** Its heartbeat and its retirement when idle (executor-watch.ts). */
  readonly #watch: ExecutorWatch;
  #retiring = false;
  /** Isolates evicted in executors retired when idle. */
  readonly #retired = new RetiredEvictions();
  /** How scripts' runs send their requests (process-runs.ts). */
  readonly #requests: Requests = {
    request: (head, body, about, onSettled) => this.#request(head, body, about, onSettled),
    abort: (id, reason) => this.#abort(id, reason),
  };
  #isolates: IsolateSettings;
  /** Where the executor goes, found out on first use (executor-spawn.ts, placementWhenNeeded). */
  readonly #placement: () => ExecutorPlacement;
  /** Polls while requests are in flight (util/hot-loop.ts); its `turns` for tests. */
  readonly #hot: HotLoop;
  #closed = false;
  #closing: (() => void) | undefined;

  constructor(options: ProcessSandboxOptions = {}) {
    this.#entry = options.entry ?? executorEntry();
    this.#startupMs = options.startupTimeoutMs ?? 10_000;
    this.#heartbeatMs = options.heartbeatMs ?? 5_000;
    this.#watch = new ExecutorWatch(this.#heartbeatMs, {
      current: () => this.#executor,
      busy: () => this.#pending.size > 0,
      settled: () => this.#closed || this.#retiring,
      silenceAllowedMs: () => this.#silenceAllowedMs(),
      kill: (executor) => this.#kill(executor),
      retire: () => void this.#retireNow(),
    });
    this.#isolates = options.isolates ?? DEFAULT_ISOLATE_SETTINGS;
    this.#placement = placementWhenNeeded(options.jail ?? 'auto');
    this.#hot = new HotLoop(options.pollMicros ?? defaultPollMicros(), () => this.#pending.size > 0);
  }

  /** The walls around the isolates this sandbox holds (the jail as the first executor will get it). */
  get walls(): Walls {
    return wallsOf(this.#placement());
  }

  /** Starts the executor when none runs (`Sandbox.warm`); one no request reaches retires when idle. */
  warm(): void {
    const placement = this.#closed || this.#executor !== undefined ? undefined : this.#placement();
    if (placement === undefined || (!placement.jailed && placement.refused)) return;
    this.#spawn();
    this.#updateHeartbeat();
  }

  /** The process new requests go to: the live one, a new one, or none while a dead one is closing. */
  #live(): Executor | undefined {
    const current = this.#executor;
    if (current !== undefined) return current.ended === undefined && current.open ? current : undefined;
    return this.#spawn();
  }

  #spawn(): Executor {
    this.#generation += 1;
    const executor = startExecutor(this.#entry, this.#placement(), this.#generation, this.#startupMs, {
      onFrame: (frame, from) => this.#onMessage(frame, from),
      onEnded: (ended) => this.#onEnded(ended),
      kill: (it) => this.#kill(it),
      closed: () => this.#closed,
    });
    this.#executor = executor;
    executor.writer.send(JSON.stringify({ t: 'isolates', settings: this.#isolates } satisfies ToExecutor));
    executor.writer.send(JSON.stringify({ t: 'poll', micros: this.#hot.maxMicros } satisfies ToExecutor));
    // Every plugin needs the base prelude: sent at once, so it is compiled while requests come.
    sendPrelude(executor, 'base');
    for (const entry of this.#versions.live()) {
      sendPrelude(executor, preludeKindOf(entry.bundle));
      executor.writer.send(
        JSON.stringify({ t: 'load', key: entry.key, limits: entry.limits } satisfies ToExecutor),
        entry.bundle,
      );
    }
    return executor;
  }

  /** Ends `executor` at once (executor-process.ts). */
  #kill(executor: Executor): void {
    killExecutor(executor, this.#placement().jailed);
  }

  #dispatch(pending: Pending): void {
    const executor = this.#live();
    if (executor === undefined) return; // #onEnded sends it to the next process
    if (pending.prelude !== undefined) sendPrelude(executor, pending.prelude);
    pending.sentTo = executor;
    pending.seq = executor.sent++;
    pending.sends += 1;
    executor.writer.send(pending.head, pending.body, this.#pending.size === 1); // alone: sent at once
    this.#hot.keep(); // polls for the answer a while (util/hot-loop.ts)
  }

  /** Sends to the live process only: a message for a dead one is dropped (a new one reloads). */
  #post(message: ToExecutor, body?: string): void {
    const executor = this.#executor;
    if (executor !== undefined && executor.ended === undefined && executor.open)
      executor.writer.send(JSON.stringify(message), body);
  }

  #onMessage(frame: Frame, from: Executor): void {
    if ((frame.head as { t?: unknown }).t === 'reply') this.#hot.heard(); // what it polls for
    handleFrame(frame, from, this.#pending, { heard: () => this.#updateHeartbeat() });
  }

  #onEnded(executor: Executor): void {
    if (this.#executor === executor) this.#executor = undefined;
    if (this.#closed) {
      executor.startedMark?.close();
      for (const pending of [...this.#pending.values()]) {
        this.#pending.delete(pending.id);
        pending.resolve(crashed('the sandbox was closed'));
      }
      this.#updateHeartbeat();
      this.#closing?.();
      return;
    }
    settleRequestsOf(executor, this.#pending, {
      startupMs: this.#startupMs,
      silenceAllowedMs: () => this.#silenceAllowedMs(),
      emitCrash: (crash) => this.#crashListeners.emit(crash),
    });
    // Requests that never reached a live process go to a new one, in the order they were made.
    for (const pending of this.#pending.values()) if (pending.sentTo === undefined) this.#dispatch(pending);
    this.#updateHeartbeat();
  }

  onCrash(listener: (crash: SandboxCrash) => void): () => void {
    return this.#crashListeners.add(listener);
  }

  #silenceAllowedMs(): number {
    return silenceAllowedMs(this.#heartbeatMs, this.#versions.live());
  }

  #updateHeartbeat(): void {
    this.#watch.update(this.#isolates.idleMs);
  }

  async #retireNow(): Promise<void> {
    const executor = this.#executor;
    if (executor === undefined || !executor.ready || this.#pending.size > 0 || this.#closed) return;
    // Its eviction counts first: `isolateStats` keeps counting across processes.
    this.#retiring = true;
    let outcome: Outcome;
    try {
      outcome = await this.#request<Outcome>((id) => ({ t: 'stats', id }), '');
    } finally {
      this.#retiring = false;
    }
    if (this.#executor !== executor || this.#pending.size > 0 || this.#closed) {
      // Work came meanwhile: it stays.
      this.#watch.retireWhenIdle(this.#pending.size > 0, this.#isolates.idleMs);
      return;
    }
    // The isolates still live there go for idleness, as they would have a moment later.
    this.#retired.retired(outcome);
    executor.killedBy = 'retired';
    this.#executor = undefined;
    this.#kill(executor);
  }

  /**
   * Sends a request (`head` built for its id, `body` as it is) and waits for its outcome;
   * `onSettled` runs when it has one, however it ended.
   */
  #request<R>(
    head: (id: number) => ToExecutor,
    body: string,
    about: RequestAbout = {},
    onSettled?: () => void,
  ): Promise<R> {
    if (this.#closed) {
      onSettled?.();
      return Promise.resolve(crashed('the sandbox is closed') as R);
    }
    const placement = this.#placement();
    if (!placement.jailed && placement.refused) {
      onSettled?.();
      return Promise.resolve(crashed(`the executor process could not start: ${placement.reason}`) as R);
    }
    const id = this.#nextId++;
    return new Promise<R>((resolve) => {
      const pending = newPending(id, JSON.stringify(head(id)), body, about, resolve, onSettled);
      this.#pending.set(id, pending);
      this.#dispatch(pending);
      this.#updateHeartbeat();
    });
  }

  describe(
    bundle: string,
    configJson: string,
    limits: SandboxLimits,
  ): Promise<SandboxOutcome<DescribeReply>> {
    return this.#request((id) => ({ t: 'describe', id, configJson, limits }), bundle, {
      prelude: preludeKindOf(bundle),
    });
  }

  load(pluginId: string, bundle: string, limits: SandboxLimits): number {
    const { entry, created } = this.#versions.acquire(pluginId, bundle, limits);
    // A process started later loads every live version itself.
    if (created) {
      const live = this.#executor;
      if (live !== undefined && live.ended === undefined && live.open)
        sendPrelude(live, preludeKindOf(bundle));
      this.#post({ t: 'load', key: entry.key, limits: entry.limits }, bundle);
    }
    return entry.version;
  }

  unload(pluginId: string, version: number): void {
    const gone = this.#versions.release(pluginId, version);
    if (gone !== undefined) this.#post({ t: 'unload', key: gone.key });
  }

  /** Cancels request `id` (process-requests.ts). */
  #abort(id: number, reason: unknown): void {
    if (abortPending(this.#pending, id, reason)) this.#updateHeartbeat();
  }

  call(
    ...[pluginId, version, request, capabilities, sinks, cancelWith]: Parameters<Sandbox['call']>
  ): Promise<SandboxOutcome<CallReply>> {
    const cancel = asCancellation(cancelWith);
    if (cancel.aborted) return Promise.resolve(notStarted);
    let id = 0;
    const stopListening = cancel.onAbort((reason) => this.#abort(id, reason));
    const key = versionKey(pluginId, version);
    return this.#request<SandboxOutcome<CallReply>>(
      (assigned) => {
        id = assigned;
        return { t: 'call', id: assigned, key, callId: request.callId, tool: request.toolName };
      },
      callRequestJson(request),
      {
        plugin: { id: pluginId, version },
        sinks,
        logs: callLogs(this.#logWindows, pluginId, request.logs),
        capabilities,
        cancel,
      },
      stopListening,
    );
  }

  hook(
    ...[pluginId, version, request, sinks]: Parameters<Sandbox['hook']>
  ): Promise<SandboxOutcome<HookReply>> {
    const key = versionKey(pluginId, version);
    return this.#request(
      (id) => ({ t: 'hook', id, key, callId: request.callId, phase: request.phase }),
      JSON.stringify(request),
      {
        plugin: { id: pluginId, version },
        sinks,
        logs: callLogs(this.#logWindows, pluginId, request.logs),
      },
    );
  }

  runScript(source: string, options: CodeRunOptions): Promise<CodeOutcome> {
    return runScriptThrough(this.#requests, source, options);
  }

  async isolateCount(): Promise<number> {
    return (await this.isolateStats()).live;
  }

  /** The executor's isolates; eviction counts go on across executors retired when idle (not crashed). */
  async isolateStats(): Promise<IsolateStats> {
    if (this.#executor === undefined) return this.#retired.none(this.#isolates);
    const outcome = await this.#request<Outcome>((id) => ({ t: 'stats', id }), '');
    // A jailed executor has no /proc to read its resident set in: read here, where it is seen.
    return this.#retired.stats(outcome, this.#isolates, () => {
      const pid = this.#placement().jailed ? this.executorPid : undefined;
      return pid === undefined ? undefined : residentBytesOf(pid);
    });
  }

  configureIsolates(settings: IsolateSettings): void {
    if (settings.idleMs === this.#isolates.idleMs && settings.maxLive === this.#isolates.maxLive) return;
    this.#isolates = { idleMs: settings.idleMs, maxLive: settings.maxLive };
    // A process started later gets them first thing.
    this.#post({ t: 'isolates', settings: this.#isolates });
    this.#watch.retireWhenIdle(this.#pending.size > 0, this.#isolates.idleMs);
  }

  /** The pid of the process started for the executor, when it runs: bubblewrap's when jailed. */
  get pid(): number | undefined {
    return this.#executor?.child.pid;
  }

  /** The host's pid of the process that runs plugin code (inside the jail when jailed), when it runs. */
  get executorPid(): number | undefined {
    const pid = this.pid;
    if (pid === undefined || !this.#placement().jailed) return pid;
    return jailedPid(pid);
  }

  /** Turns this process polled for answers (util/hot-loop.ts): tests and benchmarks. */
  get pollTurns(): number {
    return this.#hot.turns;
  }

  /** How many executor processes this sandbox has started: 1 for the first, +1 per restart. */
  get generation(): number {
    return this.#generation;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#watch.stop();
    const executor = this.#executor;
    if (executor === undefined) return;
    const closed = new Promise<void>((resolve) => {
      this.#closing = resolve;
    });
    // The executor ends when its end of the channel closes.
    if (executor.open) {
      executor.writer.flush();
      executor.channel?.end();
    }
    const timer = setTimeout(() => this.#kill(executor), 2_000);
    await closed;
    clearTimeout(timer);
  }
}
