import type {
  CallReply,
  CallRequest,
  DescribeReply,
  HookReply,
  HookRequest,
} from '@toolhost/plugin-sdk/protocol';
import type { SandboxLimits, SandboxOutcome } from './types.js';

/** Messages from the host to the executor process. `id` pairs a request with its reply. */
export type ToExecutor =
  | {
      readonly t: 'describe';
      readonly id: number;
      readonly bundle: string;
      readonly configJson: string;
      readonly limits: SandboxLimits;
    }
  /** `key` names a plugin version (`versionKey`). */
  | { readonly t: 'load'; readonly key: string; readonly bundle: string; readonly limits: SandboxLimits }
  | { readonly t: 'unload'; readonly key: string }
  | { readonly t: 'call'; readonly id: number; readonly key: string; readonly request: CallRequest }
  | { readonly t: 'hook'; readonly id: number; readonly key: string; readonly request: HookRequest }
  | { readonly t: 'abort'; readonly id: number; readonly reason: string }
  | { readonly t: 'capability-reply'; readonly requestId: number; readonly reply: string }
  | { readonly t: 'count'; readonly id: number }
  | { readonly t: 'ping'; readonly id: number };

/** Messages from the executor process to the host. */
export type FromExecutor =
  /** Sent once, first: the process is up and reads requests. */
  | { readonly t: 'ready' }
  /**
   * These requests reached the executor and run there now. A request not acknowledged when the
   * process dies never ran there (anything it did would have come after this message), so the
   * host sends it to the next process instead of failing it.
   */
  | { readonly t: 'started'; readonly ids: readonly number[] }
  | {
      readonly t: 'reply';
      readonly id: number;
      readonly outcome:
        | SandboxOutcome<CallReply | HookReply | DescribeReply>
        | { readonly kind: 'count'; readonly count: number };
    }
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
  | {
      readonly t: 'capability';
      readonly id: number;
      readonly requestId: number;
      readonly capability: string;
      readonly args: string;
    }
  | { readonly t: 'pong'; readonly id: number };
