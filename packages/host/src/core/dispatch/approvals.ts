/**
 * Approvals: a person approves a risky call before it runs.
 *
 * Order of one call (the wrapper runs it; see `BeforeToolCallResult` for the hooks' part):
 * 1. policy (deny, allow) and availability refuse first: a denied tool is never asked about;
 * 2. the input is validated, then the before-hooks run under the session lock; asks are collected
 *    (config `tools.approve` first, then the descriptor's `requireApproval`, then hooks in order;
 *    the first wins) and a block from any hook ends the call with nobody asked;
 * 3. after the last before-hook the lock is released and the person is asked once, with the final
 *    input: the input is serialized and hashed here, and the approver gets a copy of exactly that;
 *    neither the session lock nor the hook time limit is held while a person decides, so the
 *    session's other calls go on (only this call waits, at most `approvals.timeoutMs`);
 * 4. right before the executor the input is hashed again: a change since it was shown (by code
 *    that kept hold of the object) is refused (`not-approved`), never run; and the executor gets
 *    not that object but a frozen copy parsed from the approved JSON, so nothing that runs after
 *    the check (after-hooks, observers, un-awaited code holding the original) changes what runs.
 * An `allow-always` is remembered for the session and the tool — its owner and name, so a tool of
 * the same name from another plugin, server or channel (one that replaced it) is asked about
 * again — or only that exact input, with `scope: 'input'`; it answers later asks of that tool from
 * any source (config, descriptor, hook) at once.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { RegisteredTool } from '../../types.js';
import { parseFrozen } from '../../util/frozen-json.js';
import { formatOwner } from '../refs.js';
import { matchesPattern, subjectOf } from '../register/policy.js';
import { errorResult } from '../wrap/results.js';
import type { ApprovalAsk, ApprovalGate, ApprovalVerdict, CallStatus } from '../wrap/wrapper.js';
import type { ApprovalQueue } from './approval-queue.js';
import {
  type ApprovalHandler,
  type ApprovalRule,
  type ApprovalSettings,
  NO_APPROVALS,
  type PendingApproval,
} from './approval-types.js';

export { ApprovalQueue } from './approval-queue.js';
// The shapes stay importable from here, where the order of one call is told.
export type * from './approval-types.js';
export { DEFAULT_APPROVAL_TIMEOUT_MS, NO_APPROVALS } from './approval-types.js';

/** The exact text hashed and shown; undefined for an input JSON cannot hold (a cycle, a BigInt). */
function serialize(input: unknown): string | undefined {
  try {
    return JSON.stringify(input) ?? 'null';
  } catch {
    return undefined;
  }
}

function hashOf(json: string): string {
  return createHash('sha256').update(json).digest('hex');
}

/** Why approval is needed, for messages: the `tools.approve` pattern, the descriptor or the hook. */
export function neededBy(
  ask: Pick<ApprovalAsk, 'source' | 'pattern' | 'hook' | 'title' | 'reason'> & { readonly key?: string },
): string {
  const reason = ask.reason === undefined ? '' : ` (${ask.reason})`;
  switch (ask.source) {
    case 'config':
      return `${ask.key ?? 'tools.approve'} pattern "${ask.pattern}"${reason}`;
    case 'descriptor':
      return `the tool's own requireApproval${reason}`;
    case 'hook':
      return `hook "${ask.hook}": ${ask.title}`;
  }
}

/** What can be removed so the call needs nobody, for the refusal when nobody can be asked. */
function removable(ask: ApprovalAsk): string {
  switch (ask.source) {
    case 'config':
      return `remove "${ask.pattern}" from ${ask.key ?? 'tools.approve'}`;
    case 'descriptor':
      return "drop the tool's requireApproval";
    case 'hook':
      return `change hook "${ask.hook}"`;
  }
}

function staticAsk(tool: RegisteredTool, rules: readonly ApprovalRule[]): ApprovalAsk | undefined {
  const { descriptor } = tool;
  const title = `Allow "${descriptor.name}" to run?`;
  if (rules.length > 0) {
    const subject = subjectOf(tool);
    const rule = rules.find((r) => matchesPattern(r.tool, subject));
    if (rule !== undefined) {
      return {
        source: 'config',
        title,
        pattern: rule.tool,
        ...(rule.key === undefined ? {} : { key: rule.key }),
        severity: rule.severity ?? 'warning',
        ...(rule.reason === undefined ? {} : { reason: rule.reason, description: rule.reason }),
      };
    }
  }
  const own = descriptor.requireApproval;
  if (own === undefined) return undefined;
  const reason = own === true ? undefined : own.reason;
  return {
    source: 'descriptor',
    title,
    severity: (own === true ? undefined : own.severity) ?? 'warning',
    ...(reason === undefined ? {} : { reason, description: reason }),
  };
}

/**
 * What an `allow-always` is given to: the session's principal, the tool's owner and name
 * (`token:ci plugin:good deploy`). A name has no space, so no owner and name pair reads as another.
 */
function alwaysKey(tool: RegisteredTool, principal: string | undefined): string {
  // The principal too: an answer one caller gave never covers another's calls.
  return `${principal ?? ''} ${formatOwner(tool.descriptor.owner)} ${tool.descriptor.name}`;
}

/** What a session keeps about approvals: its handler and what it allowed always. */
export class SessionApprovals {
  readonly #sessionId: string;
  readonly #principal: string | undefined;
  readonly #handler: ApprovalHandler | undefined;
  readonly #queue: ApprovalQueue;
  /** By {@link alwaysKey}: `true` (any input) or the hashes of the inputs allowed always. */
  readonly #always = new Map<string, true | Set<string>>();

  constructor(
    sessionId: string,
    handler: ApprovalHandler | undefined,
    queue: ApprovalQueue,
    principal?: string,
  ) {
    this.#sessionId = sessionId;
    this.#principal = principal;
    this.#handler = handler;
    this.#queue = queue;
  }

  /** The gate of one snapshot's settings: asks per tool are worked out once per tool object. */
  gate(settings: ApprovalSettings | undefined): ApprovalGate {
    const { rules, timeoutMs } = settings ?? NO_APPROVALS;
    const asks = new WeakMap<RegisteredTool, ApprovalAsk | null>();
    return {
      askOf: (tool) => {
        let ask = asks.get(tool);
        if (ask === undefined) {
          ask = staticAsk(tool, rules) ?? null;
          asks.set(tool, ask);
        }
        return ask ?? undefined;
      },
      decide: (tool, toolUseId, input, ask, signal) =>
        this.#decide(tool, toolUseId, input, ask, signal, timeoutMs),
      unchanged: (input, frozen) => {
        const json = serialize(input);
        return json !== undefined && hashOf(json) === frozen;
      },
    };
  }

  async #decide(
    tool: RegisteredTool,
    toolUseId: string,
    input: unknown,
    ask: ApprovalAsk,
    signal: AbortSignal,
    defaultTimeoutMs: number,
  ): Promise<ApprovalVerdict> {
    const name = tool.descriptor.name;
    const refuse = (text: string, status: CallStatus = 'not-approved'): ApprovalVerdict => ({
      approved: false,
      status,
      result: errorResult(text),
    });
    const json = serialize(input);
    if (json === undefined) {
      return refuse(`Tool "${name}" was not approved: its input cannot be shown as JSON to an approver`);
    }
    const frozen = hashOf(json);
    const approval: PendingApproval = {
      id: randomUUID(),
      sessionId: this.#sessionId,
      ...(this.#principal === undefined ? {} : { principal: this.#principal }),
      toolUseId,
      tool: name,
      owner: formatOwner(tool.descriptor.owner),
      input: JSON.parse(json),
      title: ask.title,
      ...(ask.description === undefined ? {} : { description: ask.description }),
      severity: ask.severity,
      ...(ask.reason === undefined ? {} : { reason: ask.reason }),
      source: ask.source,
      ...(ask.pattern === undefined ? {} : { pattern: ask.pattern }),
      ...(ask.hook === undefined ? {} : { hook: ask.hook }),
      timeoutMs: Math.min(defaultTimeoutMs, ask.timeoutMs ?? defaultTimeoutMs),
      requestedAt: Date.now(),
    };
    const key = alwaysKey(tool, this.#principal);
    const always = this.#always.get(key);
    if (always === true || always?.has(frozen)) {
      this.#queue.recall(approval);
      return { approved: true, frozen, input: parseFrozen(json) };
    }
    if (this.#handler === undefined && !this.#queue.watched) {
      return refuse(
        `Tool "${name}" was not approved: it needs approval (required by ${neededBy(ask)}) and this session has nobody to ask. ` +
          `Answer approvals with host.session({ onApproval }) or host.approvals, run \`toolhost call\` with --yes, or ${removable(ask)}`,
      );
    }
    const settled = await this.#queue.ask(approval, signal, this.#handler);
    const why = `required by ${neededBy(ask)}`;
    switch (settled.decision) {
      case 'allow-always':
        if (settled.scope === 'input') {
          const hashes = always instanceof Set ? always : new Set<string>();
          hashes.add(frozen);
          this.#always.set(key, hashes);
        } else {
          this.#always.set(key, true);
        }
        return { approved: true, frozen, input: parseFrozen(json) };
      case 'allow-once':
        return { approved: true, frozen, input: parseFrozen(json) };
      case 'deny':
        return refuse(
          `Tool "${name}" was not approved: denied by ${settled.by}${settled.reason === undefined ? '' : `: ${settled.reason}`} (${why})`,
        );
      case 'timeout':
        return refuse(
          `Tool "${name}" was not approved: nobody decided within ${approval.timeoutMs} ms (approvals.timeoutMs), so it was refused (${why})`,
        );
      case 'cancelled':
        return settled.by === 'caller'
          ? refuse(`Tool "${name}" was cancelled by the caller while waiting for approval`, 'cancelled')
          : refuse(
              `Tool "${name}" was not approved: ${settled.by} dismissed the request without deciding${settled.reason === undefined ? '' : `: ${settled.reason}`} (${why})`,
            );
    }
  }
}
