import type { ToolResult } from '@toolhost/plugin-sdk';
import type { RegisteredTool } from '../../types.js';
import { CancelSource } from '../../util/cancel.js';
import { finalize } from './after-hooks.js';
import { phasesOf, prepare, validate } from './before-hooks.js';
import type { ApprovalVerdict, CallOutcome, CallStatus, WrapperContext } from './call-types.js';
import { failureText } from './errors.js';
import { execute } from './execution.js';
import { errorResult } from './results.js';

export type { CallLimits } from '../../config/limits.js';
export { DEFAULT_LIMITS } from '../../config/limits.js';
export type {
  ApprovalAsk,
  ApprovalGate,
  ApprovalVerdict,
  CallObserver,
  CallOutcome,
  CallStatus,
  WrapperContext,
} from './call-types.js';

/** The reason a call's signal carries when the call simply ended: shared, so a call allocates no Error. */
const CALL_ENDED = new Error('call ended');
/** The signal after-hooks see when the caller gave none: never aborted. */
const NEVER_ABORTED = new AbortController().signal;

/** A finished call's outcome. */
function outcome(status: CallStatus, result: ToolResult, started: number, executorMs?: number): CallOutcome {
  const durationMs = performance.now() - started;
  return executorMs === undefined
    ? { status, result, durationMs }
    : { status, result, durationMs, executorMs };
}

function cancelledResult(tool: RegisteredTool): ToolResult {
  return errorResult(`Tool "${tool.descriptor.name}" was cancelled by the caller`);
}

/**
 * The one wrapper every executor runs under, whatever its kind: validation, before-hooks,
 * executor (with timeout and cancellation), after-hooks, error capture and timing.
 * Never throws: every failure is an `is_error` result whose text says what happened.
 * Without hooks or a caller's signal, a call allocates only its result, one promise chain and
 * one deadline timer; its abort signal exists only if the executor asks for it.
 */
export async function callTool(
  tool: RegisteredTool,
  toolUseId: string,
  rawInput: unknown,
  ctx: WrapperContext,
): Promise<CallOutcome> {
  const started = performance.now();
  const caller = ctx.signal;
  if (caller?.aborted) return outcome('cancelled', cancelledResult(tool), started);
  // Hooks and the executor see one signal: aborted on cancel, on timeout, and when the call ends.
  // The call's cancellation, its signal made only when something asks for it (most tools never
  // do): stopped on cancel, on timeout and when the call ends, even if first asked for afterwards.
  const control = new CancelSource();
  const cancel = caller === undefined ? undefined : () => control.stop(caller.reason);
  if (cancel !== undefined) caller?.addEventListener('abort', cancel, { once: true });
  try {
    const { before, after } = phasesOf(ctx.hooks);
    const checked = validate(tool, rawInput);
    const gate = ctx.approvals;
    const fixedAsk = gate?.askOf(tool);
    let input: unknown;
    if (checked.ok && before.length === 0 && fixedAsk === undefined) {
      input = checked.value;
    } else {
      const prepared = await prepare(tool, toolUseId, checked, before, ctx, control.signal, fixedAsk);
      if (prepared.kind === 'done') return outcome(prepared.status, prepared.result, started);
      input = prepared.input;
      // Asked once, after the last before-hook, outside the session lock and the hook time limit.
      let approved: Extract<ApprovalVerdict, { approved: true }> | undefined;
      if (prepared.ask !== undefined) {
        if (gate === undefined) {
          return outcome(
            'not-approved',
            errorResult(`Tool "${tool.descriptor.name}" needs approval and nobody can give it here`),
            started,
          );
        }
        const verdict = await gate.decide(tool, toolUseId, input, prepared.ask, control.signal);
        if (!verdict.approved) return outcome(verdict.status, verdict.result, started);
        approved = verdict;
      }
      // A caller that gave up while the before-hooks ran gets nothing executed on its behalf.
      if (control.aborted) return outcome('cancelled', cancelledResult(tool), started);
      if (approved !== undefined) {
        // A mutation since the person saw it (of an object a hook kept hold of) is refused, not
        // run unapproved; and the executor gets the approved bytes as a frozen copy, not that
        // object, so nothing that runs from here on can change what runs.
        if (!gate?.unchanged(input, approved.frozen)) {
          return outcome(
            'not-approved',
            errorResult(
              `Tool "${tool.descriptor.name}" was not approved: its input changed after it was shown to the approver`,
            ),
            started,
          );
        }
        input = approved.input;
      }
    }
    const executorStarted = performance.now();
    const executed = await execute(tool, toolUseId, input, ctx, control);
    const executorMs = performance.now() - executorStarted;
    if (after.length === 0) return outcome(executed.status, executed.result, started, executorMs);
    const finalized = await finalize(
      tool,
      toolUseId,
      input,
      executed.result,
      executorMs,
      after,
      ctx,
      caller ?? NEVER_ABORTED,
    );
    return outcome(finalized.failed ? 'hook-failed' : executed.status, finalized.result, started, executorMs);
  } catch (error) {
    return outcome(
      'executor-threw',
      errorResult(`Internal error while calling "${tool.descriptor.name}": ${failureText(error, rawInput)}`),
      started,
    );
  } finally {
    if (cancel !== undefined) caller?.removeEventListener('abort', cancel);
    // Whatever ended the call (a block, a hook timeout, a result), work still holding its signal
    // — an abandoned hook, a stray executor promise — is told to stop.
    control.stop(CALL_ENDED);
  }
}
