import type { Disposer } from '../../types.js';
import { messageOf } from '../../util/errors.js';
import { Listeners } from '../../util/listeners.js';
import type {
  ApprovalAnswer,
  ApprovalChoice,
  ApprovalDecision,
  ApprovalEvent,
  ApprovalHandler,
  ApprovalRequest,
  PendingApproval,
} from './approval-types.js';

const CHOICES: ReadonlySet<unknown> = new Set<ApprovalChoice>([
  'allow-once',
  'allow-always',
  'deny',
  'cancelled',
]);

export interface Settled {
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
