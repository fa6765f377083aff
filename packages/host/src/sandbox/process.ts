import { setMaxListeners } from 'node:events';
import type { CallReply, DescribeReply, HookReply } from '@toolhost/plugin-sdk/protocol';
import { type JailMode, jailedPid, type Walls } from '../jail/index.js';
import { asCancellation, CancelSource } from '../util/cancel.js';
import { residentBytesOf } from '../util/memory.js';
import { builtEntry } from '../util/package.js';
import { callLogs } from './call-handlers.js';
import type { Frame } from './channel.js';
import { settleRequestsOf } from './executor-deaths.js';
import { handleFrame } from './executor-frames.js';
import { killExecutor, sendPrelude, startExecutor } from './executor-process.js';
import { type ExecutorPlacement, executorPlacement, wallsOf } from './executor-spawn.js';
import { ExecutorWatch, silenceAllowedMs } from './executor-watch.js';
import type { ToExecutor } from './ipc.js';
import { LogWindows } from './log-budget.js';
import { type PreludeKind, preludeKindOf } from './prelude-kind.js';
import {
  crashed,
  type Executor,
  notStarted,
  type Outcome,
  type Pending,
  type ScriptRun,
  scriptEnd,
} from './process-requests.js';
import { scriptLimit } from './script-outcomes.js';
import {
  type CodeOutcome,
  type CodeRunOptions,
  DEFAULT_ISOLATE_SETTINGS,
  type IsolateSettings,
  type IsolateStats,
  type Sandbox,
  type SandboxCrash,
  type SandboxLimits,
  type SandboxOutcome,
} from './types.js';
import { PluginVersions, versionKey } from './versions.js';

/** The executor entry (always the built copy in dist). */
const executorEntry = () => builtEntry('sandbox/executor-main.js');

/** How a `ProcessSandbox` supervises its executor process. */
export interface ProcessSandboxOptions {
  /** The executor script; default the built `executor-main.js`. */
  readonly entry?: string;
  /** A new executor process must say it is ready within this, ms; default 10 000. */
  readonly startupTimeoutMs?: number;
  /**
   * A busy executor must answer a ping within this, ms, beyond the longest CPU budget of a live
   * plugin (a sync entry may hold its thread that long), or it is killed; default 5 000.
   */
  readonly heartbeatMs?: number;
  /** When the executor's idle isolates go; default `DEFAULT_ISOLATE_SETTINGS`. */
  readonly isolates?: IsolateSettings;
  /** Whether the executor runs in the OS jail (`sandbox.jail`); default `auto`. */
  readonly jail?: JailMode;
}

/**
 * Isolates in a supervised child process. A plugin that makes V8 abort (isolated-vm issues #457,
 * #527) kills only the child. Exactly the requests that were running there (the child had
 * counted them read: started-mark.ts) end with an `is_error` result naming the crash; requests it had not started,
 * and requests that arrive while it is down, go to the next process, which is started at once
 * when there is work. A death is charged to a plugin when only that plugin was running there; the
 * host hears of it through `onCrash`. Costs a round trip over the channel (`channel.ts`) per call.
 * One process: a second one (each call sent to the next, round robin) bought no throughput at
 * 5,000 calls in flight on a 2-core machine, where the host is the busier side, and made
 * sequential calls slower.
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
  readonly #crashListeners = new Set<(crash: SandboxCrash) => void>();
  /** Its heartbeat and its retirement when idle (executor-watch.ts). */
  readonly #watch: ExecutorWatch;
  #retiring = false;
  /** Isolates evicted in executors retired when idle. */
  #evictedBefore = { idle: 0, cap: 0 };
  #isolates: IsolateSettings;
  readonly #placement: ExecutorPlacement;
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
    this.#placement = executorPlacement(options.jail ?? 'auto');
  }

  /** The walls around the isolates this sandbox holds (the jail as the first executor will get it). */
  get walls(): Walls {
    return wallsOf(this.#placement);
  }

  /** The process new requests go to: the live one, a new one, or none while a dead one is closing. */
  #live(): Executor | undefined {
    const current = this.#executor;
    if (current !== undefined) return current.ended === undefined && current.open ? current : undefined;
    return this.#spawn();
  }

  #spawn(): Executor {
    this.#generation += 1;
    const executor = startExecutor(this.#entry, this.#placement, this.#generation, this.#startupMs, {
      onFrame: (frame, from) => this.#onMessage(frame, from),
      onEnded: (ended) => this.#onEnded(ended),
      kill: (it) => this.#kill(it),
      closed: () => this.#closed,
    });
    this.#executor = executor;
    executor.writer.send(JSON.stringify({ t: 'isolates', settings: this.#isolates } satisfies ToExecutor));
    // Every plugin needs the base prelude: sent at once, so it is compiled while requests come.
    this.#sendPrelude(executor, 'base');
    for (const entry of this.#versions.live()) {
      this.#sendPrelude(executor, preludeKindOf(entry.bundle));
      executor.writer.send(
        JSON.stringify({ t: 'load', key: entry.key, limits: entry.limits } satisfies ToExecutor),
        entry.bundle,
      );
    }
    return executor;
  }

  /** Ends `executor` at once (executor-process.ts). */
  #kill(executor: Executor): void {
    killExecutor(executor, this.#placement.jailed);
  }

  #sendPrelude(executor: Executor, kind: PreludeKind): void {
    sendPrelude(executor, kind);
  }

  #dispatch(pending: Pending): void {
    const executor = this.#live();
    if (executor === undefined) return; // #onEnded sends it to the next process
    if (pending.prelude !== undefined) this.#sendPrelude(executor, pending.prelude);
    pending.sentTo = executor;
    pending.seq = executor.sent++;
    pending.sends += 1;
    executor.writer.send(pending.head, pending.body);
  }

  /** Sends to the live process only: a message for a dead one is dropped (a new one reloads). */
  #post(message: ToExecutor, body?: string): void {
    const executor = this.#executor;
    if (executor !== undefined && executor.ended === undefined && executor.open)
      executor.writer.send(JSON.stringify(message), body);
  }

  #onMessage(frame: Frame, from: Executor): void {
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
      emitCrash: (crash) => this.#emitCrash(crash),
    });
    // Requests that never reached a live process go to a new one, in the order they were made.
    for (const pending of this.#pending.values()) if (pending.sentTo === undefined) this.#dispatch(pending);
    this.#updateHeartbeat();
  }

  #emitCrash(crash: SandboxCrash): void {
    for (const listener of [...this.#crashListeners]) {
      try {
        listener(crash);
      } catch {
        // A listener's fault must not stop the others or the restart.
      }
    }
  }

  onCrash(listener: (crash: SandboxCrash) => void): () => void {
    this.#crashListeners.add(listener);
    return () => this.#crashListeners.delete(listener);
  }

  #silenceAllowedMs(): number {
    return silenceAllowedMs(this.#heartbeatMs, this.#versions.live());
  }

  #updateHeartbeat(): void {
    this.#watch.update(this.#isolates.idleMs);
  }

  #retireWhenIdle(busy: boolean): void {
    this.#watch.retireWhenIdle(busy, this.#isolates.idleMs);
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
      this.#retireWhenIdle(this.#pending.size > 0);
      return;
    }
    if (outcome.kind === 'stats') {
      // The isolates still live there go for idleness, as they would have a moment later.
      const { live, evicted } = outcome.stats;
      this.#evictedBefore = {
        idle: this.#evictedBefore.idle + evicted.idle + live,
        cap: this.#evictedBefore.cap + evicted.cap,
      };
    }
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
    about: Pick<Pending, 'plugin' | 'sinks' | 'logs' | 'capabilities' | 'cancel' | 'script' | 'prelude'> = {},
    onSettled?: () => void,
  ): Promise<R> {
    if (this.#closed) {
      onSettled?.();
      return Promise.resolve(crashed('the sandbox is closed') as R);
    }
    if (!this.#placement.jailed && this.#placement.refused) {
      onSettled?.();
      return Promise.resolve(crashed(`the executor process could not start: ${this.#placement.reason}`) as R);
    }
    const id = this.#nextId++;
    return new Promise<R>((resolve) => {
      const pending: Pending = {
        id,
        head: JSON.stringify(head(id)),
        body,
        resolve:
          onSettled === undefined
            ? (resolve as Pending['resolve'])
            : (outcome) => {
                onSettled();
                resolve(outcome as R);
              },
        sentTo: undefined,
        seq: 0,
        sends: 0,
        ...about,
      };
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
        this.#sendPrelude(live, preludeKindOf(bundle));
      this.#post({ t: 'load', key: entry.key, limits: entry.limits }, bundle);
    }
    return entry.version;
  }

  unload(pluginId: string, version: number): void {
    const gone = this.#versions.release(pluginId, version);
    if (gone !== undefined) this.#post({ t: 'unload', key: gone.key });
  }

  /** Cancels request `id`: told to the process running it, or never sent if it waits for one. */
  #abort(id: number, reason: unknown): void {
    const pending = this.#pending.get(id);
    if (pending === undefined) return;
    if (pending.sentTo === undefined) {
      // Waiting for a new process: it never started, and now never will.
      this.#pending.delete(id);
      pending.resolve(notStarted);
      this.#updateHeartbeat();
      return;
    }
    const executor = pending.sentTo;
    if (executor.ended === undefined && executor.open) {
      executor.writer.send(
        JSON.stringify({ t: 'abort', id, reason: String(reason ?? 'cancelled') } satisfies ToExecutor),
      );
    }
  }

  call(
    ...[pluginId, version, request, capabilities, sinks, cancelWith]: Parameters<Sandbox['call']>
  ): Promise<SandboxOutcome<CallReply>> {
    const cancel = asCancellation(cancelWith);
    if (cancel.aborted) {
      return Promise.resolve(notStarted);
    }
    let id = 0;
    const stopListening = cancel.onAbort((reason) => this.#abort(id, reason));
    const key = versionKey(pluginId, version);
    return this.#request<SandboxOutcome<CallReply>>(
      (assigned) => {
        id = assigned;
        return { t: 'call', id: assigned, key, callId: request.callId, tool: request.toolName };
      },
      JSON.stringify(request),
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
    const cancel = options.signal === undefined ? new CancelSource() : asCancellation(options.signal);
    if (cancel.aborted) return Promise.resolve(scriptLimit('cancelled', 'the script was cancelled'));
    const ended = new AbortController();
    // Every tool call of the run in flight listens on it (up to maxToolCalls): not a leak.
    setMaxListeners(0, ended.signal);
    const script: ScriptRun = { options, signal: ended.signal, calls: 0 };
    let id = 0;
    const onAbort = (reason: unknown) => {
      // Its tool calls here end now, not when the executor's answer comes.
      ended.abort(reason);
      this.#abort(id, reason);
    };
    const stopListening = cancel.onAbort(onAbort);
    return this.#request<Outcome>(
      (assigned) => {
        id = assigned;
        return { t: 'script', id: assigned, limits: options.limits };
      },
      source,
      { cancel, script },
      () => {
        stopListening();
        ended.abort('the script ended');
      },
    ).then(scriptEnd);
  }

  async isolateCount(): Promise<number> {
    return (await this.isolateStats()).live;
  }

  /**
   * The executor's isolates. Eviction counts go on across executors retired when idle (a crashed
   * executor's own counts are lost with it).
   */
  async isolateStats(): Promise<IsolateStats> {
    const none = { live: 0, ...this.#isolates, evicted: { ...this.#evictedBefore }, scripts: 0 };
    if (this.#executor === undefined) return none;
    const outcome = await this.#request<Outcome>((id) => ({ t: 'stats', id }), '');
    if (outcome.kind !== 'stats') return none;
    const { evicted, memory } = outcome.stats;
    // A jailed executor has no /proc to read its resident set in: read here, where it is seen.
    const pid = this.#placement.jailed ? this.executorPid : undefined;
    const rss = pid === undefined ? undefined : residentBytesOf(pid);
    return {
      ...outcome.stats,
      ...(rss === undefined || memory === undefined ? {} : { memory: { ...memory, rss } }),
      evicted: { idle: evicted.idle + this.#evictedBefore.idle, cap: evicted.cap + this.#evictedBefore.cap },
    };
  }

  configureIsolates(settings: IsolateSettings): void {
    if (settings.idleMs === this.#isolates.idleMs && settings.maxLive === this.#isolates.maxLive) return;
    this.#isolates = { idleMs: settings.idleMs, maxLive: settings.maxLive };
    // A process started later gets them first thing.
    this.#post({ t: 'isolates', settings: this.#isolates });
    this.#retireWhenIdle(this.#pending.size > 0);
  }

  /**
   * The pid of the process the host started for the executor, when it runs (for crash tests):
   * bubblewrap when jailed (killing it ends the executor), else the executor itself.
   */
  get pid(): number | undefined {
    return this.#executor?.child.pid;
  }

  /** The host's pid of the process that runs plugin code (inside the jail when jailed), when it runs. */
  get executorPid(): number | undefined {
    const pid = this.pid;
    if (pid === undefined || !this.#placement.jailed) return pid;
    return jailedPid(pid);
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
