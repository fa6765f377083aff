import type { ToolLogger, ToolResult } from '@toolhost/plugin-sdk';
import { BACKSTOP_MS, type CallLimits, timerMs } from '../../config/limits.js';
import { messageOf } from '../../util/errors.js';
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
  InputCheck,
  InputIssue,
  RegisteredTool,
  ToolHooks,
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
  | 'ok'
  | 'timeout'
  | 'tool-error';

/** Log and progress sinks of one call (an MCP request, a CLI run, an agent loop). */
export interface CallObserver {
  log?(level: keyof ToolLogger, message: string, data?: unknown): void;
  progress?(done: number, total?: number, message?: string): void;
}

/** Everything the wrapper needs besides the tool: the session's lock and hooks, limits, observers. */
export interface WrapperContext {
  readonly sessionId: string;
  readonly lock: AsyncMutex;
  readonly hooks: readonly ToolHooks[];
  readonly limits: CallLimits;
  readonly signal?: AbortSignal;
  readonly observer?: CallObserver;
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
  | { readonly kind: 'ready'; readonly input: unknown }
  | { readonly kind: 'done'; readonly status: CallStatus; readonly result: ToolResult };

function invalidInputResult(name: string, issues: readonly InputIssue[]): ToolResult {
  return errorResult(`Invalid input for tool "${name}": ${issuesText(issues)}`);
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
 * The issues to report for an input the host refused: the executor's own account when it has one
 * (a plugin's zod messages), else the host's. Only on this failure path is the executor asked.
 */
async function ownWords(
  tool: RegisteredTool,
  input: unknown,
  issues: readonly InputIssue[],
  call: { toolUseId: string; sessionId: string; signal: AbortSignal },
): Promise<readonly InputIssue[]> {
  if (tool.executor.explainInvalidInput === undefined) return issues;
  try {
    const own = await tool.executor.explainInvalidInput(input, call);
    return own !== undefined && own.length > 0 ? own : issues;
  } catch {
    return issues;
  }
}

/**
 * Stage 1: validate the model's input, then run the before-hooks under the session lock.
 * Every rewrite is validated again before the next hook sees it.
 */
async function prepare(
  tool: RegisteredTool,
  toolUseId: string,
  rawInput: unknown,
  ctx: WrapperContext,
  signal: AbortSignal,
): Promise<Prepared> {
  const name = tool.descriptor.name;
  // The executor's own check (zod, for in-process tools), else the descriptor's JSON Schema:
  // whatever the source, hooks and executors only ever see input that passed one of them.
  const own = tool.executor.validateInput;
  const validate = (value: unknown): InputCheck =>
    own === undefined
      ? checkWithJsonSchema(tool.descriptor.inputSchema, value)
      : own.call(tool.executor, value);
  const checked = validate(rawInput);
  if (!checked.ok) {
    const issues = await ownWords(tool, rawInput, checked.issues, {
      toolUseId,
      sessionId: ctx.sessionId,
      signal,
    });
    return { kind: 'done', status: 'invalid-input', result: invalidInputResult(name, issues) };
  }
  const hooks = ctx.hooks.filter((h) => h.beforeToolCall !== undefined);
  if (hooks.length === 0) return { kind: 'ready', input: checked.value };

  const { sessionId } = ctx;
  const { descriptor } = tool;
  return ctx.lock.run(async (): Promise<Prepared> => {
    let input = checked.value;
    for (const hook of hooks) {
      let verdict: BeforeToolCallResult | void;
      try {
        // A fresh event per hook, its fields written out: spreading a shared base cost ~10 % of a call.
        const event = { sessionId, toolUseId, toolName: name, descriptor, input, signal };
        verdict = await runHook(hook, ctx, () => hook.beforeToolCall?.(event));
      } catch (error) {
        return {
          kind: 'done',
          status: 'blocked',
          result: errorResult(`Tool "${name}" was blocked: hook "${hook.name}" failed: ${messageOf(error)}`),
        };
      }
      if (verdict === undefined || verdict === null) continue;
      if ('block' in verdict && verdict.block === true) {
        const reason =
          typeof verdict.reason === 'string' && verdict.reason !== '' ? verdict.reason : 'no reason given';
        return {
          kind: 'done',
          status: 'blocked',
          result: errorResult(`Tool "${name}" was blocked by hook "${hook.name}": ${reason}`),
        };
      }
      if ('input' in verdict) {
        const rewritten = validate(verdict.input);
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
      }
    }
    return { kind: 'ready', input };
  });
}

/** Stage 2: the executor, under the wall-clock limit and the caller's signal. */
async function execute(
  tool: RegisteredTool,
  toolUseId: string,
  input: unknown,
  ctx: WrapperContext,
  controller: AbortController,
): Promise<{ status: CallStatus; result: ToolResult }> {
  const name = tool.descriptor.name;
  const { limits, observer } = ctx;
  // An observer's fault is the host's own: it must never reach the executor (or plugin code).
  const log = (level: keyof ToolLogger) => (message: string, data?: unknown) => {
    try {
      observer?.log?.(level, message, data);
    } catch {
      // Dropped: a broken log sink loses a line, never a call.
    }
  };
  const execution: ExecutionContext = {
    toolUseId,
    sessionId: ctx.sessionId,
    signal: controller.signal,
    log: { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') },
    progress: (done, total, message) => {
      try {
        if (!controller.signal.aborted) observer?.progress?.(done, total, message);
      } catch {
        // As for log lines.
      }
    },
  };

  // The source's own wall clock when it sets one, else the call limit (limits.ts has the rule).
  const own = tool.timeout;
  const deadlineMs =
    own === undefined ? limits.timeoutMs : own.selfEnforced ? timerMs(own.ms + BACKSTOP_MS) : own.ms;
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<{ status: CallStatus; result: ToolResult }>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new Error(`timed out after ${deadlineMs} ms`));
      resolve({
        status: 'timeout',
        result: errorResult(
          own?.selfEnforced
            ? `Tool "${name}" did not stop at its limit of ${own.ms} ms (${own.setting}) and was abandoned after ${deadlineMs} ms`
            : `Tool "${name}" timed out after ${deadlineMs} ms (limit: ${own?.setting ?? 'limits.timeoutMs'}) and was aborted`,
        ),
      });
    }, deadlineMs);
    timer.unref();
    onAbort = () =>
      resolve({ status: 'cancelled', result: errorResult(`Tool "${name}" was cancelled by the caller`) });
    ctx.signal?.addEventListener('abort', onAbort, { once: true });
  });

  const running = (async () => {
    try {
      const result = await tool.executor.run(input, execution);
      const size = resultSize(result);
      if (size > limits.maxResultChars) {
        return {
          status: 'limit-exceeded' as const,
          result: errorResult(
            `Tool "${name}" returned ${size} characters, over the limit maxResultChars (${limits.maxResultChars})`,
          ),
        };
      }
      return { status: result.isError === true ? ('tool-error' as const) : ('ok' as const), result };
    } catch (error) {
      if (isInvalidInputError(error)) {
        return { status: 'invalid-input' as const, result: invalidInputResult(name, error.issues) };
      }
      if (isCallStopped(error)) return { status: error.status, result: errorResult(error.message) };
      return {
        status: 'executor-threw' as const,
        result: errorResult(`Tool "${name}" failed: ${messageOf(error)}`),
      };
    }
  })();

  try {
    return await Promise.race([running, stopped]);
  } finally {
    clearTimeout(timer);
    if (onAbort !== undefined) ctx.signal?.removeEventListener('abort', onAbort);
    // Whatever happens next, the executor's own work is over as far as the caller is concerned.
    if (!controller.signal.aborted) controller.abort(new Error('call ended'));
  }
}

/** Stage 3: the after-hooks, under the session lock; see `AfterToolCallResult` for the merge rules. */
async function finalize(
  tool: RegisteredTool,
  toolUseId: string,
  input: unknown,
  first: ToolResult,
  durationMs: number,
  ctx: WrapperContext,
  signal: AbortSignal,
): Promise<{ result: ToolResult; failed: boolean }> {
  const hooks = ctx.hooks.filter((h) => h.afterToolCall !== undefined);
  if (hooks.length === 0) return { result: first, failed: false };
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
            `After-hook "${hook.name}" failed after tool "${name}" had already run (its effects happened): ${messageOf(error)}`,
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

/**
 * The one wrapper every executor runs under, whatever its kind: validation, before-hooks,
 * executor (with timeout and cancellation), after-hooks, error capture and timing.
 * Never throws: every failure is an `is_error` result whose text says what happened.
 */
export async function callTool(
  tool: RegisteredTool,
  toolUseId: string,
  rawInput: unknown,
  ctx: WrapperContext,
): Promise<CallOutcome> {
  const started = performance.now();
  const controller = new AbortController();
  const done = (status: CallStatus, result: ToolResult, executorMs?: number): CallOutcome => ({
    status,
    result,
    durationMs: performance.now() - started,
    ...(executorMs === undefined ? {} : { executorMs }),
  });
  // Hooks and the executor see one signal: aborted on cancel, on timeout, and when the call ends.
  const cancel = () => controller.abort(ctx.signal?.reason);
  const cancelled = () =>
    done('cancelled', errorResult(`Tool "${tool.descriptor.name}" was cancelled by the caller`));
  if (ctx.signal?.aborted) return cancelled();
  ctx.signal?.addEventListener('abort', cancel, { once: true });
  try {
    const prepared = await prepare(tool, toolUseId, rawInput, ctx, controller.signal);
    if (prepared.kind === 'done') return done(prepared.status, prepared.result);
    // A caller that gave up while the before-hooks ran gets nothing executed on its behalf.
    if (controller.signal.aborted) return cancelled();
    const executorStarted = performance.now();
    const executed = await execute(tool, toolUseId, prepared.input, ctx, controller);
    const executorMs = performance.now() - executorStarted;
    const afterSignal = ctx.signal ?? new AbortController().signal;
    const finalized = await finalize(
      tool,
      toolUseId,
      prepared.input,
      executed.result,
      executorMs,
      ctx,
      afterSignal,
    );
    return done(finalized.failed ? 'hook-failed' : executed.status, finalized.result, executorMs);
  } catch (error) {
    return done(
      'executor-threw',
      errorResult(`Internal error while calling "${tool.descriptor.name}": ${messageOf(error)}`),
    );
  } finally {
    ctx.signal?.removeEventListener('abort', cancel);
    // Whatever ended the call (a block, a hook timeout, a result), work still holding its signal
    // — an abandoned hook, a stray executor promise — is told to stop.
    if (!controller.signal.aborted) controller.abort(new Error('call ended'));
  }
}
