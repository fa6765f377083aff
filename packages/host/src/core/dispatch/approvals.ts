import { createHash, randomUUID } from 'node:crypto';
import type { ApprovalSeverity } from '@toolhost/plugin-sdk';
import type { Disposer, RegisteredTool } from '../../types.js';
import { messageOf } from '../../util/errors.js';
import { parseFrozen } from '../../util/frozen-json.js';
import { Listeners } from '../../util/listeners.js';
import { formatOwner } from '../refs.js';
import { matchesPattern, subjectOf } from '../register/policy.js';
import { errorResult } from '../wrap/results.js';
import type { ApprovalAsk, ApprovalGate, ApprovalVerdict, CallStatus } from '../wrap/wrapper.js';

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

const CHOICES: ReadonlySet<unknown> = new Set<ApprovalChoice>([
  'allow-once',
  'allow-always',
  'deny',
  'cancelled',
]);

interface Settled {
  readonly decision: ApprovalDecision;
  readonly by: string;
  readonly reason?: string;
  readonly scope?: 'tool' | 'input';
}

/** An answer in one shape, or what is wrong with it. */
function normalize(answer: unknown, by: string): Settled | string {
  if (CHOICES.has(answer)) return { decision: answer as ApprovalChoice, by };
  if (typeof answer !== 'object' || answer === null) {
    return `an answer is "allow-once", "allow-always", "deny", "cancelled" or { decision, reason?, scope?, by? }, not ${JSON.stringify(answer)}`;
  }
  const { decision, reason, scope, by: who } = answer as Record<string, unknown>;
  if (!CHOICES.has(decision)) {
    return `decision must be "allow-once", "allow-always", "deny" or "cancelled", not ${JSON.stringify(decision)}`;
  }
  if (reason !== undefined && typeof reason !== 'string') return 'reason must be a string';
  if (scope !== undefined && scope !== 'tool' && scope !== 'input') return 'scope must be "tool" or "input"';
  if (who !== undefined && (typeof who !== 'string' || who === '')) return 'by must be a non-empty string';
  return {
    decision: decision as ApprovalChoice,
    by: (who as string | undefined) ?? by,
    ...(reason === undefined || reason === '' ? {} : { reason: reason as string }),
    ...(scope === undefined ? {} : { scope: scope as 'tool' | 'input' }),
  };
}

interface Open {
  readonly approval: PendingApproval;
  settle(settled: Settled): void;
}

/**
 * The host's approvals waiting for an answer, and the events of every approval. The first answer
 * wins, whether the session's `onApproval` or `answer` (a dashboard, an operator) gives it.
 */
export class ApprovalQueue {
  readonly #open = new Map<string, Open>();
  readonly #events = new Listeners<ApprovalEvent>();

  /** Approvals waiting now, oldest first. */
  pending(): readonly PendingApproval[] {
    return [...this.#open.values()].map((open) => open.approval);
  }

  /**
   * Answers the approval `id` on behalf of `by`. True when this answer decided it; false when it
   * was already decided (or never existed). An answer of the wrong shape is a TypeError.
   */
  answer(id: string, answer: ApprovalAnswer, by: string): boolean {
    if (typeof by !== 'string' || by === '')
      throw new TypeError('approvals.answer: `by` must name who answers');
    const settled = normalize(answer, by);
    if (typeof settled === 'string') throw new TypeError(`approvals.answer: ${settled}`);
    const open = this.#open.get(id);
    if (open === undefined) return false;
    open.settle(settled);
    return true;
  }

  /** Listens for `requested` and `decided` events; the disposer stops. */
  on(listener: (event: ApprovalEvent) => void): Disposer {
    return this.#events.add(listener);
  }

  /** True when someone listens, and so might answer through the queue. */
  get watched(): boolean {
    return this.#events.size > 0;
  }

  /** Records a decision taken without asking (an earlier allow-always). */
  recall(approval: PendingApproval): void {
    this.#events.emit({ type: 'decided', approval, decision: 'allow-always', by: 'remembered', waitedMs: 0 });
  }

  /** Asks: `handler` (if any) and the queue's answerers race; timeout and `signal` end it too. */
  ask(
    approval: PendingApproval,
    signal: AbortSignal,
    handler: ApprovalHandler | undefined,
  ): Promise<Settled> {
    const started = performance.now();
    const controller = new AbortController();
    return new Promise<Settled>((resolve) => {
      let done = false;
      const onAbort = () => settle({ decision: 'cancelled', by: 'caller' });
      const timer = setTimeout(() => settle({ decision: 'timeout', by: 'timeout' }), approval.timeoutMs);
      timer.unref();
      const settle = (settled: Settled): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.#open.delete(approval.id);
        controller.abort(new Error(`approval ${approval.id} ended: ${settled.decision}`));
        this.#events.emit({
          type: 'decided',
          approval,
          decision: settled.decision,
          by: settled.by,
          ...(settled.reason === undefined ? {} : { reason: settled.reason }),
          waitedMs: performance.now() - started,
        });
        resolve(settled);
      };
      if (signal.aborted) {
        onAbort();
        return;
      }
      signal.addEventListener('abort', onAbort, { once: true });
      this.#open.set(approval.id, { approval, settle });
      this.#events.emit({ type: 'requested', approval });
      if (handler === undefined || done) return;
      const request: ApprovalRequest = { ...approval, signal: controller.signal };
      // Fail closed: a handler that throws or answers nonsense denies, saying so.
      Promise.resolve()
        .then(() => handler(request))
        .then(
          (answer) => {
            const settled = normalize(answer, 'onApproval');
            settle(
              typeof settled === 'string'
                ? { decision: 'deny', by: 'onApproval', reason: `onApproval answered wrongly: ${settled}` }
                : settled,
            );
          },
          (error: unknown) =>
            settle({ decision: 'deny', by: 'onApproval', reason: `onApproval failed: ${messageOf(error)}` }),
        );
    });
  }
}

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
