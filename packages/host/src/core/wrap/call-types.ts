import type { ApprovalSeverity, ToolLogger, ToolResult } from '@toolhost/plugin-sdk';
import type { CallLimits } from '../../config/limits.js';
import type { InputAsker, RegisteredTool, ToolHooks, TraceContext } from '../../types.js';
import type { AsyncMutex } from '../../util/lock.js';

/** How a call ended; `ok` and `tool-error` mean the executor ran to completion. */
export type CallStatus =
  | 'blocked'
  | 'cancelled'
  | 'executor-threw'
  | 'hook-failed'
  | 'invalid-input'
  | 'limit-exceeded'
  | 'not-approved'
  | 'ok'
  | 'timeout'
  | 'tool-error';

/** How a call ended: its status and the result the model gets (what every stage that can end it hands on). */
export interface CallEnd {
  readonly status: CallStatus;
  readonly result: ToolResult;
}

/** Log and progress sinks of one call (an MCP request, a CLI run, an agent loop). */
export interface CallObserver {
  log?(level: keyof ToolLogger, message: string, data?: unknown): void;
  progress?(done: number, total?: number, message?: string): void;
  /** A before-hook's verdict that changed the call: it blocked it (or failed, which blocks), or rewrote its input. */
  hook?(name: string, verdict: 'block' | 'rewrite'): void;
  /** Asks the client the call came from (`ctx.ask`), when it came from an MCP client. */
  readonly ask?: InputAsker;
}

/** Everything the wrapper needs besides the tool: the session's lock and hooks, limits, observers. */
export interface WrapperContext {
  readonly sessionId: string;
  readonly lock: AsyncMutex;
  readonly hooks: readonly ToolHooks[];
  readonly limits: CallLimits;
  readonly signal?: AbortSignal;
  readonly observer?: CallObserver;
  /** The trace context of the call, handed to its executor. */
  readonly trace?: TraceContext;
  /** Asks a person before calls that need approval; without it such a call is refused. */
  readonly approvals?: ApprovalGate;
}

/** A demand that a person approve a call: from config, the tool's descriptor, or a before-hook. */
export interface ApprovalAsk {
  readonly source: 'config' | 'descriptor' | 'hook';
  /** One line shown to the approver. */
  readonly title: string;
  readonly description?: string;
  readonly severity: ApprovalSeverity;
  /** Why approval is needed (config's or descriptor's `reason`). */
  readonly reason?: string;
  /** A shorter wait than `approvals.timeoutMs` (a hook's), ms. */
  readonly timeoutMs?: number;
  /** The `tools.approve` pattern that matched (source `config`). */
  readonly pattern?: string;
  /** The config key of that pattern, when not `tools.approve` (a principal's). */
  readonly key?: string;
  /** The hook that asked (source `hook`). */
  readonly hook?: string;
}

/** How an approval ended for the wrapper: go on with the frozen input, or stop with a result. */
export type ApprovalVerdict =
  | {
      readonly approved: true;
      /** Hash of the JSON the person approved. */
      readonly frozen: string;
      /** That JSON parsed anew, every object in it frozen: what the executor runs with. */
      readonly input: unknown;
    }
  | ({ readonly approved: false } & CallEnd);

/** What the wrapper needs of approvals (core/dispatch/approvals.ts implements it per session). */
export interface ApprovalGate {
  /** The config's or the descriptor's demand for `tool`, if any; cheap, called on every call. */
  askOf(tool: RegisteredTool): ApprovalAsk | undefined;
  /** Asks (or recalls an `allow-always`) and waits for the decision; never throws. */
  decide(
    tool: RegisteredTool,
    toolUseId: string,
    input: unknown,
    ask: ApprovalAsk,
    signal: AbortSignal,
  ): Promise<ApprovalVerdict>;
  /** True when `input` is exactly what was approved (`frozen` is its hash). */
  unchanged(input: unknown, frozen: string): boolean;
}

/** The result of one wrapped call, with how it ended and how long it took. */
export interface CallOutcome {
  readonly result: ToolResult;
  readonly status: CallStatus;
  readonly durationMs: number;
  /** Time inside the executor, when it ran. */
  readonly executorMs?: number;
}
