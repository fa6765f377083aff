/**
 * The audit trail: one record per served call and per approval, who made it and what became of
 * it. A call record holds the time, the principal, the MCP client's name, the session, the tool
 * and its owner, the input's hash and the input redacted (redact.ts), what policy said, the
 * approval's decision when one was asked or recalled, the status, the duration and the trace id.
 * An approval record holds the approval as the queue saw it (requested, then decided), its input
 * redacted. Results are never recorded.
 */
import type { ApprovalEvent } from '../core/dispatch/approvals.js';
import type { CallStatus } from '../core/wrap/wrapper.js';
import type { AuditFile } from './log.js';
import type { Redactor } from './redact.js';

/** Decided approvals kept for their call's record; beyond this the oldest go. */
const MAX_NOTES = 4096;

/** Format version of the records. */
export const AUDIT_VERSION = 1;

/** Why a served call did or did not reach its tool, as policy saw it. */
export type AuditPolicy = 'allowed' | 'denied' | 'hidden' | 'inactive' | 'unknown' | 'rate-limited';

/** A call as the server saw it end. */
export interface AuditCall {
  readonly principal: string;
  readonly client?: string;
  /** The MCP session (2025-11-25) or the host session (2026-07-28). */
  readonly session: string;
  /** The JSON-RPC request id, as text. */
  readonly requestId: string;
  readonly tool: string;
  /** `plugin:weather`, `mcp:github`, … when the tool exists. */
  readonly owner?: string;
  readonly input: unknown;
  readonly policy: AuditPolicy;
  readonly status: CallStatus | 'refused' | 'input-required' | 'rate-limited';
  readonly durationMs: number;
  readonly traceId?: string;
  /** The host session whose approvals concern this call. */
  readonly hostSession: string;
}

/** One approval's outcome, for the call record it belongs to. */
interface ApprovalNote {
  readonly decision: string;
  readonly by: string;
}

/** Where records go: one trail per serving process. */
export interface AuditSink {
  call(call: AuditCall): void;
}

export class AuditTrail implements AuditSink {
  readonly #file: AuditFile;
  readonly #redactor: () => Redactor;
  /** Approvals decided for calls still running, by host session and tool use id. */
  readonly #decided = new Map<string, ApprovalNote>();

  constructor(file: AuditFile, redactor: () => Redactor) {
    this.#file = file;
    this.#redactor = redactor;
  }

  get file(): string {
    return this.#file.file;
  }

  /**
   * Takes what the record holds now (the approval's note, the time, the input as its JSON) and
   * leaves hashing and serializing the record to when its batch is written (log.ts), off the
   * call's response. `call` is read then too: its fields other than `input` are text and numbers.
   */
  call(call: AuditCall): void {
    const redactor = this.#redactor();
    const key = `${call.hostSession} ${call.requestId}`;
    const approval = this.#decided.get(key);
    if (approval !== undefined) this.#decided.delete(key);
    const time = Date.now();
    const input = redactor.capture(call.input);
    this.#file.appendLater(() => callLine(call, approval, time, redactor, input.finish()), input.chars + 320);
  }

  /** Records an approval event of the host's queue (`host.approvals.on`). */
  approval(event: ApprovalEvent): void {
    const { approval } = event;
    const redactor = this.#redactor();
    if (event.type === 'decided') {
      this.#decided.set(`${approval.sessionId} ${approval.toolUseId}`, {
        decision: event.decision,
        by: event.by,
      });
      // Approvals of calls no served request ends (a dashboard's, an embedder's) are not kept long.
      if (this.#decided.size > MAX_NOTES) this.#decided.delete(this.#decided.keys().next().value as string);
    }
    const input = redactor.prepare(approval.input);
    this.#file.appendLine(
      line(
        {
          v: AUDIT_VERSION,
          time: new Date().toISOString(),
          type: 'approval',
          phase: event.type,
          id: approval.id,
          ...(approval.principal === undefined ? {} : { principal: approval.principal }),
          session: approval.sessionId,
          request: approval.toolUseId,
          tool: approval.tool,
          source: approval.source,
          ...(approval.pattern === undefined ? {} : { pattern: approval.pattern }),
          inputHash: input.hash,
        },
        input.json,
        event.type === 'decided'
          ? {
              decision: event.decision,
              by: event.by,
              ...(event.reason === undefined ? {} : { reason: redactor.text(event.reason) }),
              waitedMs: Math.round(event.waitedMs),
            }
          : {},
      ),
    );
  }

  /** Writes the records gathered so far now, rather than at the end of their batch. */
  flush(): void {
    this.#file.flush();
  }

  close(): void {
    this.#file.close();
  }
}

/** A call's record. */
function callLine(
  call: AuditCall,
  approval: ApprovalNote | undefined,
  time: number,
  redactor: Redactor,
  input: { readonly hash: string; readonly json: string },
): string {
  return line(
    {
      v: AUDIT_VERSION,
      time: new Date(time).toISOString(),
      type: 'call',
      principal: call.principal,
      ...(call.client === undefined ? {} : { client: redactor.text(call.client) }),
      session: call.session,
      request: call.requestId,
      tool: call.tool,
      ...(call.owner === undefined ? {} : { owner: call.owner }),
      inputHash: input.hash,
    },
    input.json,
    {
      policy: call.policy,
      ...(approval === undefined ? {} : { approval }),
      status: call.status,
      durationMs: Math.round(call.durationMs * 1000) / 1000,
      ...(call.traceId === undefined ? {} : { traceId: call.traceId }),
    },
  );
}

/**
 * One record's JSON: `before`'s fields, `"input"` (JSON made once, by the redactor), `after`'s,
 * in that order, so the input is never serialized a second time inside the record.
 */
function line(before: object, input: string, after: object): string {
  const tail = JSON.stringify(after);
  return `${JSON.stringify(before).slice(0, -1)},"input":${input}${tail === '{}' ? '}' : `,${tail.slice(1)}`}`;
}
