import type { ToolResult } from '@toolhost/plugin-sdk';
import type {
  BeforeToolCallResult,
  HookApprovalRequest,
  InputCheck,
  InputIssue,
  RegisteredTool,
  ToolHooks,
} from '../../types.js';
import { issuesText } from '../../util/zod-issues.js';
import type { ApprovalAsk, CallEnd, WrapperContext } from './call-types.js';
import { failureText } from './errors.js';
import { checkWithJsonSchema } from './input-check.js';
import { errorResult } from './results.js';

/** What stage 1 hands on: input to run with (and an ask, if approval is needed), or the call's end. */
export type Prepared =
  | { readonly kind: 'ready'; readonly input: unknown; readonly ask?: ApprovalAsk | undefined }
  | ({ readonly kind: 'done' } & CallEnd);

export function invalidInputResult(name: string, issues: readonly InputIssue[]): ToolResult {
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
export function runHook<T>(hook: ToolHooks, ctx: WrapperContext, run: () => T | PromiseLike<T>): Promise<T> {
  return withTimeout(Promise.resolve(run()), ctx.limits.hookTimeoutMs, `hook "${hook.name}"`);
}

/**
 * The input check of `tool`: the executor's own (zod, for in-process tools), else the
 * descriptor's JSON Schema. It is the one check whose refusal the model reads: a plugin tool's
 * refused input is answered here, in the validator's words, never by a trip into its isolate.
 */
export function validate(tool: RegisteredTool, value: unknown): InputCheck {
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

export function phasesOf(hooks: readonly ToolHooks[]): HookPhases {
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
export async function prepare(
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
