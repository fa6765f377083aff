import type { ChildProcess } from 'node:child_process';
import { setMaxListeners } from 'node:events';
import type { Socket } from 'node:net';
import type {
  CallReply,
  CallRequest,
  DescribeReply,
  HookReply,
  HookRequest,
} from '@toolhost/plugin-sdk/protocol';
import { type JailMode, jailedPid, type Walls } from '../jail/index.js';
import { asCancellation, type Cancellation, CancelSource } from '../util/cancel.js';
import { messageOf } from '../util/errors.js';
import { residentBytesOf } from '../util/memory.js';
import { builtEntry } from '../util/package.js';
import { type Frame, FrameReader, FrameWriter } from './channel.js';
import {
  type ExecutorPlacement,
  endedAs,
  executorPlacement,
  spawnExecutor,
  wallsOf,
} from './executor-spawn.js';
import { callHandlers } from './inline.js';
import type { FromExecutor, ToExecutor } from './ipc.js';
import type { CallHandlers } from './isolate-pool.js';
import { loadPreludeScript } from './isolate-script.js';
import { type CallLogOptions, DEFAULT_LOG_LIMITS, LogWindows } from './log-budget.js';
import { type PreludeKind, preludeKindOf } from './prelude-kind.js';
import { scriptExecutorDied, scriptLimit, scriptOutcomeOf } from './script-outcomes.js';
import { STARTED_MARK_FD, StartedMarkFile } from './started-mark.js';
import {
  type CallSinks,
  type CapabilityRunner,
  type CodeOutcome,
  type CodeRunOptions,
  type CodeToolReply,
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
 * How many executor processes may die before a request that none of them started is failed.
 * A request is sent again only when no process had read it (started-mark.ts), so it never ran twice.
 */
const MAX_SENDS = 3;

/** How long bubblewrap may take to pass on its executor's exit once the channel has closed. */
const JAIL_EXIT_GRACE_MS = 1_000;

const PING = JSON.stringify({ t: 'ping', id: 0 } satisfies ToExecutor);

/** Where frames for a process without a channel go: nowhere. */
const NOWHERE = { write: () => true, once: () => undefined };

type Outcome = SandboxOutcome<unknown> | { kind: 'stats'; stats: IsolateStats };

/** One executor process and what the host knows of it. */
interface Executor {
  readonly child: ChildProcess;
  /** Its end of the channel (the child's fd 3; none when it could not be spawned) and the frames queued for it. */
  readonly channel: Socket | undefined;
  readonly writer: FrameWriter;
  /** Where it counts the requests it has read (see started-mark.ts); none when it could not be made. */
  readonly startedMark: StartedMarkFile | undefined;
  /** The preludes sent to it (it builds none). */
  readonly preludes: Set<PreludeKind>;
  /** Requests sent to it so far: the next one's place in its order. */
  sent: number;
  /** 1 for the first process of this sandbox, then one more per restart. */
  readonly generation: number;
  ready: boolean;
  /** The channel still carries messages both ways. */
  open: boolean;
  /** How it ended (`exit code 1`, `signal SIGABRT`), once it has. */
  ended?: string;
  /** Why the host killed it, when it did. */
  killedBy?: 'heartbeat' | 'startup' | 'protocol' | 'retired';
  /** What was wrong with what it sent, when the host killed it for that. */
  protocolError?: string;
  startup?: NodeJS.Timeout;
  lastPong: number;
}

/** A code-mode run in the executor: what its tool calls need on the host. */
interface ScriptRun {
  readonly options: CodeRunOptions;
  /** Aborted when the run ends or is cancelled: its tool calls in flight here end with it. */
  readonly signal: AbortSignal;
  /** Tool calls it asked for (the executor's runner stops it past the limit; counted here too). */
  calls: number;
}

/** A request waiting for its reply. */
interface Pending {
  readonly id: number;
  /** The request's frame, head and body, kept to send it again to the next process. */
  readonly head: string;
  readonly body: string;
  /** The plugin whose code it runs, and which version (calls and hooks). */
  readonly plugin?: { readonly id: string; readonly version: number };
  readonly resolve: (outcome: Outcome) => void;
  /**
   * Where a call's or hook's log lines, progress and capability requests go; the handlers over
   * them are made when the first of these arrives (most calls send none).
   */
  readonly sinks?: CallSinks;
  /** The caps on its log lines and its plugin's window (calls and hooks). */
  readonly logs?: CallLogOptions;
  readonly capabilities?: CapabilityRunner;
  handlers?: CallHandlers;
  /** A code-mode script's run (script requests only). */
  readonly script?: ScriptRun;
  /** The caller's cancellation (calls): a call cancelled while it waits for a new process is not sent. */
  readonly cancel?: Cancellation;
  /** The prelude its body needs (a describe carries a bundle). */
  readonly prelude?: PreludeKind;
  /** The process it was last sent to; undefined while it waits for the next one. */
  sentTo: Executor | undefined;
  /** Its place among the requests sent to `sentTo`: started there when below the process's count. */
  seq: number;
  sends: number;
}

const crashed = (message: string) => ({ kind: 'limit', limit: 'crashed', message }) as const;

const SCRIPT_ENDED: CodeToolReply = { ok: false, message: 'the script has ended' };

/** A script's answer from the executor, or the sandbox's reason it has none, as the run's outcome. */
function scriptEnd(outcome: Outcome): CodeOutcome {
  if (outcome.kind === 'reply') return scriptOutcomeOf(outcome.reply);
  if (outcome.kind === 'limit' && outcome.limit === 'cancelled')
    return scriptLimit('cancelled', 'the script was cancelled');
  if (outcome.kind === 'limit') return scriptLimit('crashed', `the script could not run: ${outcome.message}`);
  return scriptLimit('crashed', "the executor process sent stats instead of the script's outcome");
}
/** A reply's text from the plugin runtime, parsed here, once. */
function replyOf(text: string): Outcome {
  try {
    return { kind: 'reply', reply: JSON.parse(text) };
  } catch {
    return crashed('the executor process sent a reply that is not JSON');
  }
}

/** The handlers of a request's log lines, progress and capability requests, made on first use. */
function handlersOf(pending: Pending | undefined): CallHandlers | undefined {
  if (pending?.sinks === undefined) return undefined;
  pending.handlers ??= callHandlers(
    pending.sinks,
    pending.capabilities,
    // Hooks have no caller's cancellation: theirs never comes.
    pending.cancel ?? new CancelSource(),
    pending.logs,
  );
  return pending.handlers;
}

const notStarted = {
  kind: 'limit',
  limit: 'cancelled',
  message: 'the call was cancelled before it started',
} as const;

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
  #heartbeat: NodeJS.Timeout | undefined;
  /** Ends an executor that had no request for the isolates' idle time (see `#retireWhenIdle`). */
  #retire: NodeJS.Timeout | undefined;
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
    // fd 3 is the channel: a socket pair, both ways (the fork IPC channel is not used: see channel.ts).
    // fd 4 is where it counts the requests it has read (started-mark.ts).
    let startedMark: StartedMarkFile | undefined;
    try {
      startedMark = StartedMarkFile.open();
    } catch {
      // No temp file (disk full, no temp folder): the process still runs, and if it dies every
      // request sent to it counts as started, so none can run twice.
    }
    const extra: ('pipe' | number)[] = ['pipe'];
    if (startedMark !== undefined) extra[STARTED_MARK_FD - 3] = startedMark.fd;
    const child = spawnExecutor(this.#entry, this.#placement, extra);
    // Absent only when the spawn failed at once (too many open files): 'error' then says so.
    const channel = (child.stdio[3] ?? undefined) as Socket | undefined;
    this.#generation += 1;
    const executor: Executor = {
      child,
      channel,
      writer: new FrameWriter(channel ?? NOWHERE),
      startedMark,
      preludes: new Set(),
      sent: 0,
      generation: this.#generation,
      ready: false,
      open: channel !== undefined,
      lastPong: Date.now(),
    };
    this.#executor = executor;
    executor.startup = setTimeout(() => {
      if (executor.ready || executor.ended !== undefined) return;
      executor.killedBy = 'startup';
      this.#kill(executor);
    }, this.#startupMs);
    executor.startup.unref();
    const reader = new FrameReader(
      (frame) => {
        try {
          this.#onMessage(frame, executor);
        } catch {
          // A host-side fault handling one message (a throwing sink) must not take the host down.
        }
      },
      (error) => {
        // Only our executor writes there: whatever it sends now cannot be trusted. A crash: its
        // running requests fail, the others go to the next process.
        executor.protocolError ??= error.message;
        executor.killedBy ??= 'protocol';
        executor.open = false;
        this.#kill(executor);
      },
    );
    channel?.on('data', (chunk: Buffer) => reader.push(chunk));
    // Settled once it has exited *and* its channel is closed, i.e. after every message it managed
    // to send, and after its last count of the requests it had started.
    let waiting = 2;
    const settle = () => {
      waiting -= 1;
      if (waiting === 0) this.#onEnded(executor);
    };
    const jailed = this.#placement.jailed;
    child.on('exit', (code, signal) => {
      executor.ended = endedAs(code, signal, jailed);
      clearTimeout(executor.startup);
      settle();
    });
    // A write to a process that died fails here; its exit is what counts.
    channel?.on('error', () => {});
    channel?.once('close', () => {
      executor.open = false;
      settle();
      // A process without its channel is of no use, and would keep requests waiting: end it.
      // Jailed, the channel closes as the executor exits, a moment before bubblewrap passes its
      // exit on: killed at once, bubblewrap would report SIGKILL instead of how the executor ended.
      if (this.#closed || executor.ended !== undefined) return;
      if (!jailed) child.kill('SIGKILL');
      else
        setTimeout(() => executor.ended === undefined && child.kill('SIGKILL'), JAIL_EXIT_GRACE_MS).unref();
    });
    child.on('error', (error) => {
      // A process that could not be spawned at all never exits nor disconnects.
      if (child.pid !== undefined || executor.ended !== undefined) return;
      executor.ended = `spawn failed: ${error.message}`;
      waiting = 1;
      settle();
    });
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

  /**
   * Ends `executor` at once. Jailed, the executor itself goes first: bubblewrap's death reaches it
   * too, but a moment later, in which it could still read (and count as started) more requests.
   */
  #kill(executor: Executor): void {
    const pid = executor.child.pid;
    const inner = this.#placement.jailed && pid !== undefined ? jailedPid(pid) : undefined;
    if (inner !== undefined) {
      try {
        process.kill(inner, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    executor.child.kill('SIGKILL');
  }

  /** Sends `executor` the prelude of `kind` once it is built, unless it already has it. */
  #sendPrelude(executor: Executor, kind: PreludeKind): void {
    if (executor.preludes.has(kind)) return;
    executor.preludes.add(kind);
    const send = (head: ToExecutor, body?: string) => {
      if (executor.ended === undefined && executor.open) executor.writer.send(JSON.stringify(head), body);
    };
    loadPreludeScript(kind).then(
      (code) => send({ t: 'prelude', kind }, code),
      (error: unknown) =>
        send({
          t: 'prelude',
          kind,
          error: `the host could not build the sandbox prelude: ${messageOf(error)}`,
        }),
    );
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
    if (!from.open) return;
    const message = frame.head as unknown as FromExecutor;
    if (message.t === 'ready') {
      from.ready = true;
      from.lastPong = Date.now();
      clearTimeout(from.startup);
      this.#updateHeartbeat();
      return;
    }
    if (message.t === 'pong') {
      from.lastPong = Date.now();
      return;
    }
    // Only the process a request was sent to may answer it or act for it.
    const pending = this.#pending.get(message.id);
    const mine = pending?.sentTo === from ? pending : undefined;
    switch (message.t) {
      case 'reply':
        if (mine === undefined) return;
        this.#pending.delete(message.id);
        mine.handlers?.end?.();
        mine.resolve(message.outcome ?? replyOf(frame.body));
        this.#updateHeartbeat();
        return;
      case 'log':
        handlersOf(mine)?.log(message.level, message.message, message.data);
        return;
      case 'progress':
        handlersOf(mine)?.progress(message.done, message.total, message.message);
        return;
      case 'tool':
        this.#runTool(mine?.script, message.name, frame.body).then((reply) => {
          if (from.ended === undefined && from.open) {
            from.writer.send(
              JSON.stringify({
                t: 'tool-reply',
                requestId: message.requestId,
                ok: reply.ok,
              } satisfies ToExecutor),
              reply.ok ? reply.json : reply.message,
            );
          }
        });
        return;
      case 'capability': {
        const handlers = handlersOf(mine);
        const reply =
          handlers !== undefined
            ? handlers.request(message.capability, frame.body)
            : Promise.resolve(
                JSON.stringify({
                  ok: false,
                  error: `ctx capability "${message.capability}" was used after its call ended`,
                }),
              );
        // Only to the process that asked: a restarted executor reuses request ids, and an answer
        // meant for a plugin of the old one must never resolve another plugin's request.
        void reply.then((text) => {
          if (from.ended === undefined && from.open) {
            from.writer.send(
              JSON.stringify({ t: 'capability-reply', requestId: message.requestId } satisfies ToExecutor),
              text,
            );
          }
        });
        return;
      }
    }
  }

  /**
   * A script's tool call, run here through its session's wrapper. Only while its run is in
   * flight, and no more calls than its limit (the executor's runner enforces it first).
   */
  #runTool(script: ScriptRun | undefined, name: string, inputJson: string): Promise<CodeToolReply> {
    if (script === undefined || script.signal.aborted) return Promise.resolve(SCRIPT_ENDED);
    script.calls += 1;
    if (script.calls > script.options.limits.maxToolCalls) {
      return Promise.resolve({ ok: false, message: 'the script made more tool calls than its limit' });
    }
    return script.options.callTool(name, inputJson, script.signal).catch(
      (error: unknown): CodeToolReply => ({
        ok: false,
        message: `the call failed on the host: ${messageOf(error)}`,
      }),
    );
  }

  #onEnded(executor: Executor): void {
    if (this.#executor === executor) this.#executor = undefined;
    const how = executor.ended ?? 'an unknown cause';
    // Read once it has exited: nothing can add to the count any more.
    const started = executor.startedMark === undefined ? executor.sent : executor.startedMark.read();
    executor.startedMark?.close();
    const running: Pending[] = [];
    const unstarted: Pending[] = [];
    for (const pending of this.#pending.values()) {
      if (pending.sentTo !== executor) continue;
      (pending.seq < started ? running : unstarted).push(pending);
    }
    const fail = (pending: Pending, message: string) => {
      this.#pending.delete(pending.id);
      pending.resolve(crashed(message));
    };

    if (this.#closed) {
      for (const pending of [...this.#pending.values()]) fail(pending, 'the sandbox was closed');
      this.#updateHeartbeat();
      this.#closing?.();
      return;
    }
    if (!executor.ready) {
      // It never came up: trying again at once would likely loop. Its requests fail; the next
      // request starts a new process.
      const why =
        executor.killedBy === 'startup'
          ? `it did not start within ${this.#startupMs} ms`
          : `it ended (${how}) before it was ready`;
      for (const pending of unstarted) fail(pending, `the executor process could not start: ${why}`);
      // It may have read requests before its 'ready' frame left (that frame is flushed after the
      // turn in which the host's first frames can already arrive): those ran there, and end here.
      for (const pending of running)
        fail(pending, `the executor process died (${how}) while this call was running`);
    } else {
      const plugins = new Set(running.flatMap((p) => (p.plugin === undefined ? [] : [p.plugin.id])));
      const scripts = running.filter((p) => p.script !== undefined).length;
      const died =
        executor.killedBy === 'heartbeat'
          ? `the executor process stopped answering for ${this.#silenceAllowedMs()} ms and was killed`
          : executor.killedBy === 'protocol'
            ? `the executor process sent a malformed message (${executor.protocolError}) and was killed`
            : `the executor process died (${how})`;
      const withScripts = scripts > 0 ? ` (a run_code script was running there too)` : '';
      for (const pending of running) {
        if (pending.script !== undefined) {
          this.#pending.delete(pending.id);
          pending.resolve({
            kind: 'reply',
            reply: scriptExecutorDied(
              how,
              died,
              executor.killedBy !== undefined,
              pending.script.options.limits,
            ),
          });
          continue;
        }
        const others = plugins.size > 1 ? ` (plugins running there: ${[...plugins].join(', ')})` : '';
        fail(
          pending,
          `${died} while this call was running${others}${withScripts}; the next call starts a new one`,
        );
      }
      for (const pending of unstarted) {
        if (pending.cancel?.aborted === true) {
          this.#pending.delete(pending.id);
          pending.resolve(notStarted);
        } else if (pending.sends >= MAX_SENDS)
          fail(pending, `${died}; ${pending.sends} executor processes died before this call could start`);
        else pending.sentTo = undefined;
      }
      // Charged only when one plugin was running there, no code-mode script was, and the host did
      // not kill the process itself: an innocent neighbour is never blamed. A script is charged
      // nothing: it is not a plugin (there is nothing to quarantine), each run_code is a new
      // script in a fresh isolate, and its own run already ended with the limit named.
      const [only] = plugins;
      if (plugins.size === 1 && only !== undefined && scripts === 0 && executor.killedBy === undefined) {
        const version = Math.max(
          ...running.flatMap((p) => (p.plugin?.id === only ? [p.plugin.version] : [])),
        );
        this.#emitCrash({ pluginId: only, version, message: `${died} while it was running` });
      }
    }
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

  /**
   * How long the executor may go without answering a ping: the heartbeat, plus the longest a sync
   * entry of a live plugin may legitimately hold its thread (its CPU budget, see plugin-isolate.ts),
   * so the heartbeat never kills a process doing a plugin's work within its budget.
   */
  #silenceAllowedMs(): number {
    let longest = 0;
    for (const entry of this.#versions.live()) {
      longest = Math.max(longest, Math.min(entry.limits.cpuMs, entry.limits.timeoutMs));
    }
    return this.#heartbeatMs + longest;
  }

  /** Pings the live process while requests are in flight; one that stops answering is killed. */
  #updateHeartbeat(): void {
    const busy = this.#pending.size > 0;
    this.#retireWhenIdle(busy);
    if (busy && this.#heartbeat === undefined) {
      const current = this.#executor;
      if (current !== undefined) current.lastPong = Date.now();
      this.#heartbeat = setInterval(() => {
        const executor = this.#executor;
        if (executor === undefined || !executor.ready || executor.ended !== undefined) return;
        if (Date.now() - executor.lastPong > this.#silenceAllowedMs()) {
          executor.killedBy = 'heartbeat';
          this.#kill(executor);
          return;
        }
        executor.writer.send(PING);
      }, this.#heartbeatMs / 5);
      this.#heartbeat.unref();
    } else if (!busy && this.#heartbeat !== undefined) {
      clearInterval(this.#heartbeat);
      this.#heartbeat = undefined;
    }
  }

  /**
   * An executor with no request for the isolates' idle time has evicted every isolate, but its
   * process keeps what V8 and malloc took (measured: ≈ 100 MB more than a fresh one after 100
   * plugins were called once): it is ended, so idle plugins cost nothing, and the next request
   * starts a new one (≈ 0.2 s: a process and the prelude) that loads every live version again.
   * Not a crash: nothing was in flight, and no plugin is charged.
   */
  #retireWhenIdle(busy: boolean): void {
    clearTimeout(this.#retire);
    this.#retire = undefined;
    if (busy || this.#closed || this.#retiring || this.#executor === undefined) return;
    this.#retire = setTimeout(() => void this.#retireNow(), this.#isolates.idleMs);
    this.#retire.unref();
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
    pluginId: string,
    version: number,
    request: CallRequest,
    capabilities: CapabilityRunner,
    sinks: CallSinks,
    cancelWith: Cancellation | AbortSignal,
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
        logs: this.#logsOf(pluginId, request.logs),
        capabilities,
        cancel,
      },
      stopListening,
    );
  }

  /** A call's log caps (its request's, else the defaults) and its plugin's window. */
  #logsOf(pluginId: string, limits: CallLogOptions['limits'] | undefined): CallLogOptions {
    return {
      limits: limits ?? DEFAULT_LOG_LIMITS,
      plugin: { id: pluginId, window: this.#logWindows.of(pluginId) },
    };
  }

  hook(
    pluginId: string,
    version: number,
    request: HookRequest,
    sinks: CallSinks,
  ): Promise<SandboxOutcome<HookReply>> {
    const key = versionKey(pluginId, version);
    return this.#request(
      (id) => ({ t: 'hook', id, key, callId: request.callId, phase: request.phase }),
      JSON.stringify(request),
      {
        plugin: { id: pluginId, version },
        sinks,
        logs: this.#logsOf(pluginId, request.logs),
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
    clearTimeout(this.#retire);
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
