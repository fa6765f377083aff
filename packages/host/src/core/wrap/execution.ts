import type { ToolLogger, ToolResult } from '@toolhost/plugin-sdk';
import { BACKSTOP_MS, type CallLimits, timerMs } from '../../config/limits.js';
import type { ExecutionContext, InputAsker, RegisteredTool, TraceContext } from '../../types.js';
import type { Cancellation, CancelSource } from '../../util/cancel.js';
import { messageOf } from '../../util/errors.js';
import { invalidInputResult } from './before-hooks.js';
import type { CallEnd, CallObserver, WrapperContext } from './call-types.js';
import { failureText, isCallStopped, isInvalidInputError } from './errors.js';
import { toolResultSchema } from './result-schema.js';
import { errorResult, resultSize } from './results.js';

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

/**
 * How the executor's result is reported: as it is, or as over the result limit — the tool's own
 * (a plugin's) or the call's. This is the one check of a result's size, whatever the executor.
 */
function executedResult(tool: RegisteredTool, result: ToolResult, limits: CallLimits): CallEnd {
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
 * `executedResult`, or, when the host cannot read the result, a failure that says where it is
 * wrong. Plugin and MCP results are checked against the result schema where they cross into the
 * host; an in-process tool's are not (trusted code, the fast path), so a block without its data
 * got here and threw, and the call waited for its deadline.
 */
function readableResult(tool: RegisteredTool, result: ToolResult, limits: CallLimits): CallEnd {
  try {
    return executedResult(tool, result, limits);
  } catch (error) {
    const parsed = toolResultSchema.safeParse(result);
    const why = parsed.success
      ? messageOf(error)
      : parsed.error.issues
          .map((issue) => `${['result', ...issue.path].join('.')}: ${issue.message}`)
          .join('; ');
    return {
      status: 'executor-threw',
      result: errorResult(`Tool "${tool.descriptor.name}" returned a result the host cannot read: ${why}`),
    };
  }
}

/** How an executor's failure is reported. */
function executorFailure(name: string, error: unknown, input: unknown): CallEnd {
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
export function execute(
  tool: RegisteredTool,
  toolUseId: string,
  input: unknown,
  ctx: WrapperContext,
  control: CancelSource,
): Promise<CallEnd> {
  const name = tool.descriptor.name;
  const { limits, signal: caller } = ctx;
  // The source's own wall clock when it sets one, else the call limit (limits.ts has the rule).
  const own = tool.timeout;
  const deadlineMs =
    own === undefined ? limits.timeoutMs : own.selfEnforced ? timerMs(own.ms + BACKSTOP_MS) : own.ms;
  return new Promise<CallEnd>((resolve) => {
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
    function settle(executed: CallEnd): void {
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
      (result) => settle(readableResult(tool, result, limits)),
      (error: unknown) => settle(executorFailure(name, error, input)),
    );
  });
}
