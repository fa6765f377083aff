import type { LimitName } from '../sandbox/types.js';

export type { CodeModeLimits } from '../config/limits.js';

/** What a tool call made from a script answers the script: its value as JSON, or why it failed. */
export type CodeToolReply =
  | { readonly ok: true; readonly json: string }
  | { readonly ok: false; readonly message: string };

/** How a script ended: it returned, it threw, or a limit stopped it. */
export type CodeOutcome =
  | {
      readonly kind: 'returned';
      /** What the script returned, as JSON parsed back (`undefined` when it returned nothing). */
      readonly value: unknown;
      readonly log: string;
      readonly droppedLogChars: number;
    }
  | { readonly kind: 'threw'; readonly error: string; readonly log: string; readonly droppedLogChars: number }
  | { readonly kind: 'limit'; readonly limit: CodeLimitName; readonly message: string };

/** The limits that can stop a script: a sandbox's, and its count of tool calls. */
export type CodeLimitName = LimitName | 'maxToolCalls';
