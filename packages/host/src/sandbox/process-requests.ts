import type { ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import type { Cancellation } from '../util/cancel.js';
import { CancelSource } from '../util/cancel.js';
import { type CallHandlers, callHandlers } from './call-handlers.js';
import type { FrameWriter } from './channel.js';
import type { ToExecutor } from './ipc.js';
import type { CallLogOptions } from './log-budget.js';
import { NOT_STARTED, readReply } from './outcomes.js';
import type { PreludeKind } from './prelude-kind.js';
import { scriptLimit, scriptOutcomeOf } from './script-outcomes.js';
import type { StartedMarkFile } from './started-mark.js';
import type {
  CallSinks,
  CapabilityRunner,
  CodeOutcome,
  CodeRunOptions,
  CodeToolReply,
  IsolateStats,
  SandboxOutcome,
} from './types.js';

/**
 * What the process sandbox (process.ts) keeps of its executor processes and of the requests it
 * sent them, and how an answer from one becomes an outcome.
 */

/**
 * How many executor processes may die before a request that none of them started is failed.
 * A request is sent again only when no process had read it (started-mark.ts), so it never ran twice.
 */
export const MAX_SENDS = 3;

/** How long bubblewrap may take to pass on its executor's exit once the channel has closed. */
export const JAIL_EXIT_GRACE_MS = 1_000;

export const PING = JSON.stringify({ t: 'ping', id: 0 } satisfies ToExecutor);

/** Where frames for a process without a channel go: nowhere. */
export const NOWHERE = { write: () => true, once: () => undefined };

export type Outcome = SandboxOutcome<unknown> | { kind: 'stats'; stats: IsolateStats };

/** One executor process and what the host knows of it. */
export interface Executor {
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
export interface ScriptRun {
  readonly options: CodeRunOptions;
  /** Aborted when the run ends or is cancelled: its tool calls in flight here end with it. */
  readonly signal: AbortSignal;
  /** Tool calls it asked for (the executor's runner stops it past the limit; counted here too). */
  calls: number;
}

/** A request waiting for its reply. */
export interface Pending {
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

/** The record of request `id`: `resolve` its promise's, `onSettled` run first when given. */
export function newPending(
  id: number,
  head: string,
  body: string,
  about: Pick<Pending, 'plugin' | 'sinks' | 'logs' | 'capabilities' | 'script' | 'cancel' | 'prelude'>,
  resolve: (outcome: never) => void,
  onSettled: (() => void) | undefined,
): Pending {
  const settle = resolve as Pending['resolve'];
  return {
    id,
    head,
    body,
    resolve:
      onSettled === undefined
        ? settle
        : (outcome) => {
            onSettled();
            settle(outcome);
          },
    sentTo: undefined,
    seq: 0,
    sends: 0,
    ...about,
  };
}

export const crashed = (message: string) => ({ kind: 'limit', limit: 'crashed', message }) as const;

export const SCRIPT_ENDED: CodeToolReply = { ok: false, message: 'the script has ended' };

/** A script's answer from the executor, or the sandbox's reason it has none, as the run's outcome. */
export function scriptEnd(outcome: Outcome): CodeOutcome {
  if (outcome.kind === 'reply') return scriptOutcomeOf(outcome.reply);
  if (outcome.kind === 'limit' && outcome.limit === 'cancelled')
    return scriptLimit('cancelled', 'the script was cancelled');
  if (outcome.kind === 'limit') return scriptLimit('crashed', `the script could not run: ${outcome.message}`);
  return scriptLimit('crashed', "the executor process sent stats instead of the script's outcome");
}
/** A reply's text from the plugin runtime, parsed here, once. */
export function replyOf(text: string): Outcome {
  try {
    return { kind: 'reply', reply: readReply(text) };
  } catch {
    return crashed('the executor process sent a reply that is not JSON');
  }
}

/** The handlers of a request's log lines, progress and capability requests, made on first use. */
export function handlersOf(pending: Pending | undefined): CallHandlers | undefined {
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

export { NOT_STARTED as notStarted } from './outcomes.js';

/**
 * Cancels request `id`: told to the process running it, or, when it waits for a new process,
 * ended here unsent (it never started, and now never will). True when it left `pendings` so.
 */
export function abortPending(pendings: Map<number, Pending>, id: number, reason: unknown): boolean {
  const pending = pendings.get(id);
  if (pending === undefined) return false;
  const executor = pending.sentTo;
  if (executor === undefined) {
    pendings.delete(id);
    pending.resolve(NOT_STARTED);
    return true;
  }
  if (executor.ended === undefined && executor.open) {
    executor.writer.send(
      JSON.stringify({ t: 'abort', id, reason: String(reason ?? 'cancelled') } satisfies ToExecutor),
    );
  }
  return false;
}
