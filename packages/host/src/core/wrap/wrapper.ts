import type { ApprovalSeverity, ToolLogger, ToolResult } from '@toolhost/plugin-sdk';
import { BACKSTOP_MS, type CallLimits, timerMs } from '../../config/limits.js';
import { type Cancellation, CancelSource } from '../../util/cancel.js';
import { messageOf } from '../../util/errors.js';
import { withoutHostPaths } from '../../util/host-paths.js';
import type { AsyncMutex } from '../../util/lock.js';
import { issuesText } from '../../util/zod-issues.js';
import { isCallStopped, isInvalidInputError } from './errors.js';
import { checkWithJsonSchema } from './input-check.js';

export type { CallLimits } from '../../config/limits.js';
export { DEFAULT_LIMITS } from '../../config/limits.js';

import type {
  AfterToolCallResult,
  BeforeToolCallResult,
  ExecutionContext,
  HookApprovalRequest,
  InputAsker,
  InputCheck,
  InputIssue,
  RegisteredTool,
  ToolHooks,
  TraceContext,
} from '../../types.js';
import { errorResult, resultSize } from './results.js';

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
  | { readonly approved: false; readonly status: CallStatus; readonly result: ToolResult };

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

type Prepared =
  | { readonly kind: 'ready'; readonly input: unknown; readonly ask?: ApprovalAsk | undefined }
  | { readonly kind: 'done'; readonly status: CallStatus; readonly result: ToolResult };

function invalidInputResult(name: string, issues: readonly InputIssue[]): ToolResult {
  return errorResult(`Invalid input for tool "${name}": ${issuesText(issues)}`);
}

const SEVERITIES: ReadonlySet<unknown> = new Set(['info', 'warning', 'critical']);

/** A hook's approval request as an ask, or what is wrong with it. */
function hookAsk(hook: string, request: HookApprovalRequest): ApprovalAsk | string {
  if (typeof request !== 'object' || request === null) return 'requireApproval must be an object';
  const { title, description, severity, timeoutMs } = request;
  if (typeof title !== 'string' || title.trim() === '')
    return 'requireApproval.title must be a non-empty string';
  if (description !== undefined && typeof description !== 'string') {
    return 'requireApproval.description must be a string';
  }
  if (severity !== undefined && !SEVERITIES.has(severity)) {
    return 'requireApproval.severity must be "info", "warning" or "critical"';
  }
  if (
    timeoutMs !== undefined &&
    !(typeof timeoutMs === 'number' && timeoutMs > 0 && Number.isFinite(timeoutMs))
  ) {
    return 'requireApproval.timeoutMs must be a positive number';
  }
  return {
    source: 'hook',
    hook,
    title,
    severity: severity ?? 'warning',
    ...(description === undefined ? {} : { description }),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  };
}

/** Runs `work`, failing it when `ms` pass first. The timer never keeps the process alive. */
async function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
    timer.unref();
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs one hook (`run` calls it) under the hook time limit. A synchronous throw is thrown here. */
function runHook<T>(hook: ToolHooks, ctx: WrapperContext, run: () => T | PromiseLike<T>): Promise<T> {
  return withTimeout(Promise.resolve(run()), ctx.limits.hookTimeoutMs, `hook "${hook.name}"`);
}

/**
 * The input check of `tool`: the executor's own (zod, for in-process tools), else the
 * descriptor's JSON Schema. It is the one check whose refusal the model reads: a plugin tool's
 * refused input is answered here, in the validator's words, never by a trip into its isolate.
 */
function validate(tool: RegisteredTool, value: unknown): InputCheck {
  const own = tool.executor.validateInput;
  return own === undefined
    ? checkWithJsonSchema(tool.descriptor.inputSchema, value)
    : own.call(tool.executor, value);
}

/**
 * The hooks of a list that have each phase, worked out once per list: sessions reuse their list,
 * and lists are never changed once made (`HookSet` replaces its array, hooks are copied on add).
 */
interface HookPhases {
  readonly before: readonly ToolHooks[];
  readonly after: readonly ToolHooks[];
}
const phasesOfList = new WeakMap<readonly ToolHooks[], HookPhases>();
const NO_HOOKS: HookPhases = { before: [], after: [] };

function phasesOf(hooks: readonly ToolHooks[]): HookPhases {
  if (hooks.length === 0) return NO_HOOKS;
  let phases = phasesOfList.get(hooks);
  if (phases === undefined) {
    phases = {
      before: hooks.filter((h) => h.beforeToolCall !== undefined),
      after: hooks.filter((h) => h.afterToolCall !== undefined),
    };
    phasesOfList.set(hooks, phases);
  }
  return phases;
}

/**
 * Stage 1, when it has work: report an input that failed its check, or run the before-hooks
 * under the session lock. Every rewrite is validated again before the next hook sees it.
 * Hooks and executors only ever see input that passed the check, whatever the source.
 */
async function prepare(
  tool: RegisteredTool,
  toolUseId: string,
  checked: InputCheck,
  hooks: readonly ToolHooks[],
  ctx: WrapperContext,
  signal: AbortSignal,
  fixedAsk: ApprovalAsk | undefined,
): Promise<Prepared> {
  const name = tool.descriptor.name;
  if (!checked.ok) {
    return { kind: 'done', status: 'invalid-input', result: invalidInputResult(name, checked.issues) };
  }
  if (hooks.length === 0) return { kind: 'ready', input: checked.value, ask: fixedAsk };

  const { sessionId } = ctx;
  const { descriptor } = tool;
  return ctx.lock.run(async (): Promise<Prepared> => {
    let input = checked.value;
    // The first ask wins; asking waits until every hook has run (a later block means nobody is asked).
    let ask = fixedAsk;
    for (const hook of hooks) {
      let verdict: BeforeToolCallResult | void;
      try {
        // A fresh event per hook, its fields written out: spreading a shared base cost ~10 % of a call.
        const event = { sessionId, toolUseId, toolName: name, descriptor, input, signal };
        verdict = await runHook(hook, ctx, () => hook.beforeToolCall?.(event));
      } catch (error) {
        ctx.observer?.hook?.(hook.name, 'block');
        return {
          kind: 'done',
          status: 'blocked',
          result: errorResult(
            `Tool "${name}" was blocked: hook "${hook.name}" failed: ${failureText(error, input)}`,
          ),
        };
      }
      if (verdict === undefined || verdict === null) continue;
      if ('block' in verdict && verdict.block === true) {
        const reason =
          typeof verdict.reason === 'string' && verdict.reason !== '' ? verdict.reason : 'no reason given';
        ctx.observer?.hook?.(hook.name, 'block');
        return {
          kind: 'done',
          status: 'blocked',
          result: errorResult(`Tool "${name}" was blocked by hook "${hook.name}": ${reason}`),
        };
      }
      let rewrite = 'input' in verdict;
      if ('requireApproval' in verdict) {
        const asked = hookAsk(hook.name, verdict.requireApproval);
        if (typeof asked === 'string') {
          return {
            kind: 'done',
            status: 'hook-failed',
            result: errorResult(`Hook "${hook.name}" asked for approval of "${name}" wrongly: ${asked}`),
          };
        }
        ask ??= asked;
        rewrite = verdict.input !== undefined;
      }
      if (rewrite && 'input' in verdict) {
        const rewritten = validate(tool, verdict.input);
        if (!rewritten.ok) {
          return {
            kind: 'done',
            status: 'hook-failed',
            result: errorResult(
              `Hook "${hook.name}" rewrote the input of "${name}" into an invalid one: ${issuesText(rewritten.issues)}`,
            ),
          };
        }
        input = rewritten.value;
        ctx.observer?.hook?.(hook.name, 'rewrite');
      }
    }
    return { kind: 'ready', input, ask };
  });
}

/** The reason a call's signal carries when the call simply ended: shared, so a call allocates no Error. */
const CALL_ENDED = new Error('call ended');
/** The signal after-hooks see when the caller gave none: never aborted. */
const NEVER_ABORTED = new AbortController().signal;
const noop = (): void => {};
const SILENT: ToolLogger = { debug: noop, info: noop, warn: noop, error: noop };

/** Log lines to the observer; an observer's fault is the host's own and never reaches the executor. */
function loggerFor(observer: CallObserver | undefined): ToolLogger {
  const sink = observer?.log;
  if (sink === undefined) return SILENT;
  const line = (level: keyof ToolLogger) => (message: string, data?: unknown) => {
    try {
      sink.call(observer, level, message, data);
    } catch {
      // Dropped: a broken log sink loses a line, never a call.
    }
  };
  return { debug: line('debug'), info: line('info'), warn: line('warn'), error: line('error') };
}

/** What the executor sees of its call. Its signal is made on first use. */
class Execution implements ExecutionContext {
  readonly toolUseId: string;
  readonly sessionId: string;
  readonly log: ToolLogger;
  readonly trace: TraceContext | undefined;
  readonly ask: InputAsker | undefined;
  readonly #control: CancelSource;
  readonly #observer: CallObserver | undefined;

  constructor(toolUseId: string, ctx: WrapperContext, control: CancelSource) {
    this.toolUseId = toolUseId;
    this.sessionId = ctx.sessionId;
    this.log = loggerFor(ctx.observer);
    this.trace = ctx.trace;
    this.ask = ctx.observer?.ask;
    this.#control = control;
    this.#observer = ctx.observer;
  }

  get signal(): ExecutionContext['signal'] {
    return this.#control.signal;
  }

  /** Its call's cancellation, for paths that can do without a signal (util/cancel.ts `cancellationOf`). */
  get cancellation(): Cancellation {
    return this.#control;
  }

  // A field, not a method: an executor may take it out of the context.
  readonly progress = (done: number, total?: number, message?: string): void => {
    const observer = this.#observer;
    if (observer?.progress === undefined || this.#control.aborted) return;
    try {
      observer.progress(done, total, message);
    } catch {
      // As for log lines.
    }
  };
}

type Executed = { readonly status: CallStatus; readonly result: ToolResult };

/**
 * How the executor's result is reported: as it is, or as over the result limit — the tool's own
 * (a plugin's) or the call's. This is the one check of a result's size, whatever the executor.
 */
function executedResult(tool: RegisteredTool, result: ToolResult, limits: CallLimits): Executed {
  const size = resultSize(result);
  const own = tool.resultLimit;
  const max = own === undefined ? limits.maxResultChars : own.chars;
  if (size > max) {
    const raise = own === undefined ? '' : `; ${own.raise}`;
    return {
      status: 'limit-exceeded',
      result: errorResult(
        `Tool "${tool.descriptor.name}" returned ${size} characters, over the limit maxResultChars (${max})${raise}`,
      ),
    };
  }
  return { status: result.isError === true ? 'tool-error' : 'ok', result };
}

/**
 * What the model reads of a thrown error: its message without the absolute host paths Node's
 * errors carry, except a path the model wrote itself (in the call's input).
 */
function failureText(error: unknown, input: unknown): string {
  return withoutHostPaths(messageOf(error), () => {
    try {
      return JSON.stringify(input) ?? '';
    } catch {
      return '';
    }
  });
}

/** How an executor's failure is reported. */
function executorFailure(name: string, error: unknown, input: unknown): Executed {
  if (isInvalidInputError(error)) {
    return { status: 'invalid-input', result: invalidInputResult(name, error.issues) };
  }
  if (isCallStopped(error)) return { status: error.status, result: errorResult(failureText(error, input)) };
  return {
    status: 'executor-threw',
    result: errorResult(`Tool "${name}" failed: ${failureText(error, input)}`),
  };
}

/**
 * Stage 2: the executor, under the wall-clock limit and the caller's signal. One timer per call,
 * and the first of result, deadline and cancellation settles it.
 */
function execute(
  tool: RegisteredTool,
  toolUseId: string,
  input: unknown,
  ctx: WrapperContext,
  control: CancelSource,
): Promise<Executed> {
  const name = tool.descriptor.name;
  const { limits, signal: caller } = ctx;
  // The source's own wall clock when it sets one, else the call limit (limits.ts has the rule).
  const own = tool.timeout;
  const deadlineMs =
    own === undefined ? limits.timeoutMs : own.selfEnforced ? timerMs(own.ms + BACKSTOP_MS) : own.ms;
  return new Promise<Executed>((resolve) => {
    let settled = false;
    const onCancel =
      caller === undefined
        ? undefined
        : () =>
            settle({
              status: 'cancelled',
              result: errorResult(`Tool "${name}" was cancelled by the caller`),
            });
    const timer = setTimeout(() => {
      control.stop(new Error(`timed out after ${deadlineMs} ms`));
      settle({
        status: 'timeout',
        result: errorResult(
          own?.selfEnforced
            ? `Tool "${name}" did not stop at its limit of ${own.ms} ms (${own.setting}) and was abandoned after ${deadlineMs} ms`
            : `Tool "${name}" timed out after ${deadlineMs} ms (limit: ${own?.setting ?? 'limits.timeoutMs'}) and was aborted`,
        ),
      });
    }, deadlineMs);
    timer.unref();
    function settle(executed: Executed): void {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (onCancel !== undefined) caller?.removeEventListener('abort', onCancel);
      resolve(executed);
    }
    if (onCancel !== undefined) caller?.addEventListener('abort', onCancel, { once: true });
    let running: Promise<ToolResult>;
    try {
      running = tool.executor.run(input, new Execution(toolUseId, ctx, control));
    } catch (error) {
      settle(executorFailure(name, error, input));
      return;
    }
    running.then(
      (result) => settle(executedResult(tool, result, limits)),
      (error: unknown) => settle(executorFailure(name, error, input)),
    );
  });
}

/** Stage 3: the after-hooks, under the session lock; see `AfterToolCallResult` for the merge rules. */
async function finalize(
  tool: RegisteredTool,
  toolUseId: string,
  input: unknown,
  first: ToolResult,
  durationMs: number,
  hooks: readonly ToolHooks[],
  ctx: WrapperContext,
  signal: AbortSignal,
): Promise<{ result: ToolResult; failed: boolean }> {
  const name = tool.descriptor.name;
  const { sessionId } = ctx;
  const { descriptor } = tool;
  return ctx.lock.run(async () => {
    let result = first;
    for (const hook of hooks) {
      let patch: AfterToolCallResult | void;
      try {
        const event = { sessionId, toolUseId, toolName: name, descriptor, input, result, durationMs, signal };
        patch = await runHook(hook, ctx, () => hook.afterToolCall?.(event));
      } catch (error) {
        return {
          failed: true,
          result: errorResult(
            `After-hook "${hook.name}" failed after tool "${name}" had already run (its effects happened): ${failureText(error, input)}`,
          ),
        };
      }
      if (patch === undefined || patch === null) continue;
      const next: {
        content: ToolResult['content'];
        isError?: boolean;
        structuredContent?: ToolResult['structuredContent'];
      } = {
        content: patch.content ?? result.content,
      };
      const isError = 'isError' in patch && patch.isError !== undefined ? patch.isError : result.isError;
      if (isError === true) next.isError = true;
      const structured = 'structuredContent' in patch ? patch.structuredContent : result.structuredContent;
      if (structured !== undefined) next.structuredContent = structured;
      result = next;
    }
    return { result, failed: false };
  });
}

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
