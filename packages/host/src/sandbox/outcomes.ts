/**
 * How a call into a plugin isolate ends: a reply's text, or the limit (or dead isolate) that ended
 * it instead; and the waiter a reply lands in.
 */

import type { ToolResult } from '@toolhost/plugin-sdk';
import { TEXT_REPLY_MARK } from '@toolhost/plugin-sdk/protocol';
import { messageOf } from '../util/errors.js';
import type { LimitName, SandboxLimits } from './types.js';

/** A plugin bundle that could not be loaded into a fresh isolate; `detail` says why, without the prefix. */
export class PluginLoadError extends Error {
  readonly detail: string;

  constructor(detail: string) {
    super(`loading the plugin failed: ${detail}`);
    this.detail = detail;
  }
}

/** A call ended by a limit (or a dead isolate) instead of a reply. */
export interface LimitBreach {
  readonly kind: 'limit';
  readonly limit: LimitName;
  readonly message: string;
}

export type IsolateOutcome<R> = { readonly kind: 'reply'; readonly reply: R } | LimitBreach;

/** An outcome at once (a call answered within its sync entry, or refused), or a promise of one. */
export type IsolateAnswer<R> = IsolateOutcome<R> | Promise<IsolateOutcome<R>>;

/** A call cancelled before it entered its isolate (or, in the process sandbox, its executor). */
export const NOT_STARTED: LimitBreach = {
  kind: 'limit',
  limit: 'cancelled',
  message: 'the call was cancelled before it started',
};

export const GONE: LimitBreach = { kind: 'limit', limit: 'crashed', message: 'the plugin isolate is gone' };
export const NON_STRING: LimitBreach = {
  kind: 'limit',
  limit: 'crashed',
  message: 'the plugin runtime returned a non-string reply',
};

const TEXT_MARK_CODE = TEXT_REPLY_MARK.charCodeAt(0);

/**
 * An `ok` reply read from a text reply: its shape is the host's own making, so no schema checks
 * it (a class, told apart by `instanceof`: marking plain objects in a WeakSet cost more, in the
 * collector too).
 */
class TextReply {
  readonly kind = 'ok';
  readonly result: ToolResult;
  constructor(text: string) {
    this.result = { content: [{ type: 'text', text }] };
  }
}

/**
 * A reply's text from the plugin runtime, read: a text reply (protocol.ts, `TEXT_REPLY_MARK`)
 * becomes an `ok` reply of one text block, made here; any other is JSON, parsed (throws when it
 * is not). Untrusted either way, but a text reply cannot be malformed: any string is a text.
 */
export function readReply(text: string): unknown {
  return text.charCodeAt(0) === TEXT_MARK_CODE ? new TextReply(text.slice(1)) : JSON.parse(text);
}

/** Whether `reply` was read from a text reply by {@link readReply} (no parsed JSON ever is). */
export function isTextReply(reply: unknown): reply is { readonly kind: 'ok'; readonly result: ToolResult } {
  return reply instanceof TextReply;
}

/** A reply's text read (or left as text when `raw`), or the breach that ended the call instead. */
export function outcomeOf<R>(outcome: string | LimitBreach, raw: boolean): IsolateOutcome<R> {
  if (typeof outcome !== 'string') return outcome;
  return { kind: 'reply', reply: (raw ? outcome : readReply(outcome)) as R };
}

/**
 * Whether an entry's failure is isolated-vm's own (a timeout, the memory limit, a disposed
 * isolate) rather than a value the plugin's code left rejected: isolated-vm throws a promise
 * rejection that nothing handled by the end of an entry out of that entry, after the entry's
 * work (and the call's reply) is done. Such a stray rejection is the plugin's own business.
 */
export function isEngineFailure(error: unknown): boolean {
  return /^(?:Script execution timed out\.|Isolate was disposed during execution due to memory limit|Isolate is disposed)$/.test(
    messageOf(error),
  );
}

/** The log line of a stray rejection: its name (unless plain `Error`) and message, at most 4,000 characters. */
export function strayLine(error: unknown): string {
  const name = error instanceof Error ? error.name : 'Error';
  const text = name === 'Error' ? messageOf(error) : `${name}: ${messageOf(error)}`;
  return `uncaught error in a promise: ${text.length > 4000 ? `${text.slice(0, 4000)}…` : text}`;
}

/**
 * Maps an isolated-vm failure to the limit it means; a timeout of a sync entry (whose timeout is
 * the CPU budget `syncCpuMs`, see entry-modes.ts) is a `cpuMs` breach.
 */
export function breachOf(error: unknown, limits: SandboxLimits, syncCpuMs?: number): LimitBreach {
  const text = messageOf(error);
  if (syncCpuMs !== undefined && /timed out/i.test(text)) {
    return {
      kind: 'limit',
      limit: 'cpuMs',
      message: `the plugin ran synchronously past its CPU time limit (cpuMs: ${syncCpuMs})`,
    };
  }
  if (/memory limit/i.test(text)) {
    return {
      kind: 'limit',
      limit: 'memoryMb',
      message: `the plugin exceeded its memory limit (memoryMb: ${limits.memoryMb})`,
    };
  }
  if (/timed out/i.test(text)) {
    return {
      kind: 'limit',
      limit: 'timeoutMs',
      message: `the plugin ran synchronously past its time limit (timeoutMs: ${limits.timeoutMs})`,
    };
  }
  return { kind: 'limit', limit: 'crashed', message: `the plugin's isolate failed: ${text}` };
}

/** A call waiting for its reply: the runtime's `reply` lands in `settle`, which wakes the waiter (if any). */
export class WaitingCall {
  settled: string | LimitBreach | undefined;
  wake: ((outcome: string | LimitBreach) => void) | undefined;
  readonly settle = (outcome: string | LimitBreach): void => {
    this.settled = outcome;
    // Never resume the host inside the isolate's callback: Node runs the host's microtasks when
    // the callback returns, so the caller's next call would enter this isolate while it is
    // still locked by the entry that replied — nested, without its own microtask checkpoint —
    // and every later sync entry would miss its reply too. A turn later, the isolate is free.
    if (this.wake !== undefined) setImmediate(this.wake, outcome);
  };
}
