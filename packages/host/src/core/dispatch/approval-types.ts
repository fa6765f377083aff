/** The shapes of approvals, apart from the code that asks (approvals.ts says the order of one call). */
import type { ApprovalSeverity } from '@toolhost/plugin-sdk';

/**
 * The answers a person (or a program on their behalf) can give; `cancelled`: they dismissed the
 * question without deciding (an MCP client's `cancel`), which refuses the call like a deny.
 */
export type ApprovalChoice = 'allow-once' | 'allow-always' | 'deny' | 'cancelled';

/** How an approval ended: a choice, `timeout` (nobody answered), or `cancelled` (by the caller, or dismissed). */
export type ApprovalDecision = ApprovalChoice | 'timeout';

/** Where the demand for approval came from. */
export type ApprovalSource = 'config' | 'descriptor' | 'hook';

/** An answer: a choice, or a choice with a reason (shown to the model on a deny) and who gave it. */
export type ApprovalAnswer =
  | ApprovalChoice
  | {
      readonly decision: ApprovalChoice;
      /** Why; a deny's reason reaches the model. */
      readonly reason?: string;
      /** What `allow-always` covers: the tool (default) or only this exact input. */
      readonly scope?: 'tool' | 'input';
      /** Who answered, for the `approval` event (default: `onApproval`, or `answer`'s `by`). */
      readonly by?: string;
    };

/** A call waiting for approval, as the queue shows it. */
export interface PendingApproval {
  /** Answer it with `host.approvals.answer(id, …)`. */
  readonly id: string;
  readonly sessionId: string;
  /** Who the session serves (`token:ci`, `oauth:alice`), when the HTTP endpoint authenticated them. */
  readonly principal?: string;
  readonly toolUseId: string;
  readonly tool: string;
  /** Whose tool it is (`plugin:good`, `mcp:files`, `core`): a tool of another owner under the same name is another tool. */
  readonly owner: string;
  /** A copy of exactly the input that will run if approved. */
  readonly input: unknown;
  readonly title: string;
  readonly description?: string;
  readonly severity: ApprovalSeverity;
  /** Why approval is needed (the config entry's or the descriptor's reason). */
  readonly reason?: string;
  readonly source: ApprovalSource;
  /** The `tools.approve` pattern that matched (source `config`). */
  readonly pattern?: string;
  /** The hook that asked (source `hook`). */
  readonly hook?: string;
  /** How long it waits for an answer before it is refused, ms. */
  readonly timeoutMs: number;
  /** `Date.now()` when it was asked. */
  readonly requestedAt: number;
}

/** What `onApproval` receives: the pending approval and a signal aborted once it is decided anyhow. */
export interface ApprovalRequest extends PendingApproval {
  /** Aborted when someone else answered, on timeout, or when the caller cancelled. */
  readonly signal: AbortSignal;
}

/** Answers approvals of one session (`host.session({ onApproval })`). */
export type ApprovalHandler = (request: ApprovalRequest) => Promise<ApprovalAnswer>;

/** Every approval is observable: when it is asked and how it ended. */
export type ApprovalEvent =
  | { readonly type: 'requested'; readonly approval: PendingApproval }
  | {
      readonly type: 'decided';
      readonly approval: PendingApproval;
      readonly decision: ApprovalDecision;
      /** Who decided: `onApproval`, an `answer`'s `by`, `timeout`, `caller`, or `remembered` (an earlier allow-always). */
      readonly by: string;
      readonly reason?: string;
      /** How long the call waited for the decision, ms. */
      readonly waitedMs: number;
    };

/** Config `tools.approve` and `approvals`, resolved. */
export interface ApprovalSettings {
  readonly rules: readonly ApprovalRule[];
  /** Default wait for a decision, ms. */
  readonly timeoutMs: number;
  /** MCP clients whose elicitation answers count (clientInfo.name patterns). */
  readonly mcpClients: readonly string[];
}

/** One `tools.approve` entry (or a principal's, `principals.<name>.tools.approve`). */
export interface ApprovalRule {
  readonly tool: string;
  /** The config key the rule is under; default `tools.approve`. */
  readonly key?: string;
  readonly reason?: string;
  readonly severity?: ApprovalSeverity;
}

/**
 * A minute: long enough for a person to read a request and answer, short enough that an agent
 * does not hang on an unattended terminal, and the request timeout MCP SDK clients use by default.
 */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 60_000;

export const NO_APPROVALS: ApprovalSettings = {
  rules: [],
  timeoutMs: DEFAULT_APPROVAL_TIMEOUT_MS,
  mcpClients: [],
};
