import type { DescribeReply } from '@toolhost/plugin-sdk/protocol';
import type { PreludeKind } from './prelude-kind.js';
import type {
  CodeModeLimits,
  IsolateSettings,
  IsolateStats,
  SandboxLimits,
  SandboxOutcome,
} from './types.js';

/**
 * Messages between the host and the executor process, carried as the heads of `channel.ts`
 * frames. A message that names a body carries that text in its frame's body, uninterpreted.
 */

/** Messages from the host to the executor process. `id` pairs a request with its reply. */
export type ToExecutor =
  /** Body: the bundle. */
  | {
      readonly t: 'describe';
      readonly id: number;
      readonly configJson: string;
      readonly limits: SandboxLimits;
    }
  /** `key` names a plugin version (`versionKey`). Body: the bundle. */
  | { readonly t: 'load'; readonly key: string; readonly limits: SandboxLimits }
  | { readonly t: 'unload'; readonly key: string }
  /** Body: the `CallRequest` as JSON, passed to the isolate as it is. */
  | {
      readonly t: 'call';
      readonly id: number;
      readonly key: string;
      readonly callId: string;
      readonly tool: string;
    }
  /** Body: the `HookRequest` as JSON, passed to the isolate as it is. */
  | {
      readonly t: 'hook';
      readonly id: number;
      readonly key: string;
      readonly callId: string;
      readonly phase: string;
    }
  /**
   * A code-mode script to run in a fresh isolate; replied with its `CodeOutcome` as JSON in the
   * body. Body: the script's source.
   */
  | { readonly t: 'script'; readonly id: number; readonly limits: CodeModeLimits }
  /** Cancels a call or a script. */
  | { readonly t: 'abort'; readonly id: number; readonly reason: string }
  /** Body: the JSON `CapabilityReply`. */
  | { readonly t: 'capability-reply'; readonly requestId: number }
  /** The answer to a script's tool call. Body: the value's JSON when `ok`, else why it failed. */
  | { readonly t: 'tool-reply'; readonly requestId: number; readonly ok: boolean }
  /** Replied with the pool's `IsolateStats`. */
  | { readonly t: 'stats'; readonly id: number }
  /**
   * The prelude of `kind` (body: its source), built by the host: the executor has no bundler.
   * Sent once per process and kind, before or after the first request that needs it; `error`
   * when the host could not build it (the requests that need it then fail, saying why).
   */
  | { readonly t: 'prelude'; readonly kind: PreludeKind; readonly error?: string }
  /** When idle isolates go: sent first to every new process, then on each change. */
  | { readonly t: 'isolates'; readonly settings: IsolateSettings }
  /** How long the process polls after its answers (util/hot-loop.ts), µs: sent first to every new process. */
  | { readonly t: 'poll'; readonly micros: number }
  | { readonly t: 'ping'; readonly id: number };

/**
 * The messages that wait for a reply: the host counts them in the order it sends them to a
 * process, the process counts them as it reads them (started-mark.ts).
 */
export function isRequest(message: ToExecutor): boolean {
  const t = message.t;
  return t === 'call' || t === 'hook' || t === 'script' || t === 'describe' || t === 'stats';
}

/** How a request ended when it has no reply text: a limit, a describe's reply, the isolate stats. */
export type ReplyOutcome =
  | SandboxOutcome<DescribeReply>
  | { readonly kind: 'stats'; readonly stats: IsolateStats };

/** Messages from the executor process to the host. */
export type FromExecutor =
  /** Sent once, first: the process is up and reads requests. */
  | { readonly t: 'ready' }
  /**
   * Without `outcome`, the body is the reply's JSON as the plugin runtime wrote it in its isolate
   * (a `CallReply` or `HookReply`), or a script's `CodeOutcome`, parsed only by the host.
   */
  | { readonly t: 'reply'; readonly id: number; readonly outcome?: ReplyOutcome }
  | {
      readonly t: 'log';
      readonly id: number;
      readonly level: string;
      readonly message: string;
      readonly data: string;
    }
  | {
      readonly t: 'progress';
      readonly id: number;
      readonly done: number;
      readonly total: number;
      readonly message: string;
    }
  /** Body: the capability's arguments as JSON. */
  | {
      readonly t: 'capability';
      readonly id: number;
      readonly requestId: number;
      readonly capability: string;
    }
  /** A tool call made by the script `id`, for the host to run. Body: the tool's input as JSON. */
  | {
      readonly t: 'tool';
      readonly id: number;
      readonly requestId: number;
      readonly name: string;
    }
  | { readonly t: 'pong'; readonly id: number };
