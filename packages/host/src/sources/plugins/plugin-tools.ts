import { randomBytes } from 'node:crypto';
import type { HiddenToolPlanEntry, ToolDescriptor, ToolResult } from '@toolhost/plugin-sdk';
import type { CallReply, PluginManifest, ToolManifest } from '@toolhost/plugin-sdk/protocol';
import * as z from 'zod';
import type { CapabilityProvider } from '../../capabilities/index.js';
import {
  type LogLimits,
  type OwnDeadline,
  raiseHint,
  replyCharsFor,
  type SandboxLimits,
} from '../../config/limits.js';
import { placeholderDescriptor } from '../../core/refs.js';
import { unavailableEntries } from '../../core/register/unavailable.js';
import { callStopped, invalidInput, type StoppedStatus } from '../../core/wrap/errors.js';
import { errorResult } from '../../core/wrap/results.js';
import { callRequests } from '../../sandbox/call-request.js';
import { isTextReply } from '../../sandbox/outcomes.js';
import type { CallSinks, LimitName, Sandbox, SandboxOutcome } from '../../sandbox/types.js';
import type {
  AfterToolCallResult,
  BeforeToolCallResult,
  ExecutionContext,
  InputAsker,
  RegisteredTool,
  ToolHooks,
  TraceContext,
} from '../../types.js';
import { type Cancellation, cancellationOf } from '../../util/cancel.js';
import { issuesText } from '../../util/zod-issues.js';
import { askThrough } from '../ask.js';
import { afterVerdictSchema, beforeVerdictSchema, callReplySchema, hookReplySchema } from './replies.js';

/** The descriptor the host builds from a plugin's manifest entry. */
export function pluginDescriptor(pluginId: string, tool: ToolManifest): ToolDescriptor {
  return {
    ...tool,
    owner: { kind: 'plugin', pluginId },
    executor: { kind: 'plugin', pluginId, toolName: tool.name },
  };
}

/**
 * Hidden entries for a plugin: one per tool when its manifest (or at least the tool names) are
 * known, else one for the plugin.
 */
export function hiddenEntries(
  pluginId: string,
  tools: readonly ToolManifest[] | readonly string[] | undefined,
  reason: 'plugin-disabled' | 'plugin-load-failed' | 'quarantined',
  message: string,
): HiddenToolPlanEntry[] {
  const owner = { kind: 'plugin' as const, pluginId };
  const known = (tools ?? []).map((tool) =>
    typeof tool === 'string'
      ? { ...placeholderDescriptor(owner, message), name: tool }
      : pluginDescriptor(pluginId, tool),
  );
  return unavailableEntries(owner, known, { reason, message });
}

function sinksOf(ctx: ExecutionContext): CallSinks {
  return {
    log: (level, message, data) => {
      const fn = ctx.log[level as keyof ExecutionContext['log']] ?? ctx.log.info;
      fn(message, data);
    },
    progress: (done, total, message) => ctx.progress(done, total, message),
  };
}

/** The call status each sandbox limit means. */
const STATUS_OF_LIMIT = {
  cancelled: 'cancelled',
  cpuMs: 'limit-exceeded',
  crashed: 'executor-threw',
  maxResultChars: 'limit-exceeded',
  memoryMb: 'limit-exceeded',
  timeoutMs: 'timeout',
} as const satisfies Record<LimitName, StoppedStatus>;

/** The sandbox limits config can raise (`plugins.<id>.limits.<name>`); the others are events. */
const RAISABLE = {
  cancelled: false,
  cpuMs: true,
  crashed: false,
  maxResultChars: true,
  memoryMb: true,
  timeoutMs: true,
} as const satisfies Record<LimitName, boolean>;

/** Turns the sandbox's answer to a call into the result the model reads. */
function resultOf(
  pluginId: string,
  toolName: string,
  outcome: SandboxOutcome<CallReply>,
  limits: SandboxLimits,
): ToolResult {
  if (outcome.kind === 'limit') {
    const reset =
      outcome.limit === 'cancelled' ? '' : '; its isolate was reset and the next call starts fresh';
    // Thrown, so the wrapper reports the status the limit means (a timeout, a limit, a crash).
    const raise = RAISABLE[outcome.limit]
      ? `; ${raiseHint(pluginId, outcome.limit as keyof SandboxLimits)}`
      : '';
    throw callStopped(
      STATUS_OF_LIMIT[outcome.limit],
      `Tool "${toolName}" of plugin "${pluginId}" was stopped: ${outcome.message}${reset}${raise}`,
    );
  }
  // A text reply is one text block the sandbox made from the runtime's string: nothing to check.
  if (isTextReply(outcome.reply)) return outcome.reply.result;
  const parsed = callReplySchema.safeParse(outcome.reply);
  if (!parsed.success) {
    return errorResult(`Tool "${toolName}" returned a malformed reply: ${z.prettifyError(parsed.error)}`);
  }
  const reply = parsed.data;
  switch (reply.kind) {
    case 'ok':
      return reply.result;
    case 'invalid-input':
      // Thrown, so the wrapper reports it exactly as it reports invalid input of any other tool.
      throw invalidInput(reply.issues);
    case 'invalid-config':
      return errorResult(`Plugin "${pluginId}" has an invalid config: ${issuesText(reply.issues)}`);
    case 'unknown-tool':
      return errorResult(`Plugin "${pluginId}" no longer has a tool "${toolName}"`);
    case 'too-large':
      // The isolate's transport guard: the reply passed it, so the result was not copied out.
      throw callStopped(
        'limit-exceeded',
        `Tool "${toolName}" returned a result over the limit maxResultChars (${limits.maxResultChars} characters): its reply passed ${reply.size} characters inside the isolate and was not copied out; ${raiseHint(pluginId, 'maxResultChars')}`,
      );
    case 'error':
      return errorResult(`Tool "${toolName}" failed: ${reply.message}`);
  }
}

/** Everything the tools and hooks of one loaded plugin need to reach their isolate. */
export interface LoadedPlugin {
  readonly id: string;
  /** The sandbox version its tools and hooks call: the one the Map holding them was built with. */
  readonly version: number;
  readonly manifest: PluginManifest;
  readonly sandbox: Sandbox;
  /** Why it may not run now (it is quarantined); undefined when it may. */
  readonly blocked: () => string | undefined;
  readonly limits: SandboxLimits;
  /** Caps on its log lines (`limits.logs`), sent with each call and hook. */
  readonly logs: LogLimits;
  /** The plugin's wall clock and the setting it came from; its tools carry it (limits.ts). */
  readonly timeout: OwnDeadline;
  readonly config: unknown;
  readonly capabilities: CapabilityProvider;
  readonly env: Readonly<Record<string, string>>;
  /** `all`: the plugin's hooks see every tool's calls; `own` (default): only its own tools'. */
  readonly hookScope: 'own' | 'all';
}

/**
 * Call ids pair a call with its replies, aborts and capability requests in a sandbox: unique in
 * this process, which every sandbox of it serves (a random prefix, then a counter).
 */
const callIdPrefix = `${randomBytes(4).toString('hex')}-`;
let callIdCounter = 0;
function nextCallId(): string {
  callIdCounter += 1;
  return callIdPrefix + callIdCounter.toString(36);
}

/** The registered tools of a loaded plugin; their executors call into its isolate. */
export function pluginTools(plugin: LoadedPlugin): RegisteredTool[] {
  const resultLimit = {
    chars: plugin.limits.maxResultChars,
    raise: raiseHint(plugin.id, 'maxResultChars'),
  };
  const requestsOfTool = callRequests({
    config: plugin.config ?? null,
    env: plugin.env,
    envGranted: plugin.capabilities.envGranted,
    maxReplyChars: replyCharsFor(plugin.limits.maxResultChars),
    logs: plugin.logs,
  });
  return plugin.manifest.tools.map((tool) => {
    const descriptor = pluginDescriptor(plugin.id, tool);
    const requestOf = requestsOfTool(tool.name);
    const request = (
      input: unknown,
      call: {
        toolUseId: string;
        sessionId: string;
        ask?: InputAsker | undefined;
        trace?: TraceContext | undefined;
      },
      cancel: Cancellation,
      sinks: CallSinks,
    ) =>
      plugin.sandbox.call(
        plugin.id,
        plugin.version,
        requestOf({ callId: nextCallId(), toolUseId: call.toolUseId, sessionId: call.sessionId, input }),
        // ctx.ask goes to the MCP request the call came with, not to the plugin's grants.
        (capability, args, signal) =>
          capability === 'ask'
            ? askThrough(call.ask, args)
            : plugin.capabilities.invoke(capability, args, signal, call.trace),
        sinks,
        cancel,
      );
    return {
      descriptor,
      source: 'plugin',
      sourceId: plugin.id,
      timeout: plugin.timeout,
      resultLimit,
      executor: {
        ref: descriptor.executor as NonNullable<ToolDescriptor['executor']>,
        async run(input, ctx) {
          // A call admitted before a quarantine started: the plugin gets no more chances to crash
          // the executor under other plugins' calls.
          const blocked = plugin.blocked();
          if (blocked !== undefined) return errorResult(`Tool "${tool.name}" was not run: ${blocked}`);
          const outcome = await request(input, ctx, cancellationOf(ctx), sinksOf(ctx));
          return resultOf(plugin.id, tool.name, outcome, plugin.limits);
        },
      },
    };
  });
}

/** Host hooks that run a plugin's declared hooks inside its isolate. */
export function pluginHooks(plugin: LoadedPlugin): ToolHooks | undefined {
  const { before, after } = plugin.manifest.hooks;
  if (!before && !after) return undefined;
  const applies = (owner: ToolDescriptor['owner']) =>
    plugin.hookScope === 'all' || (owner.kind === 'plugin' && owner.pluginId === plugin.id);
  /** Runs one phase in the isolate and returns the verdict, checked against `schema`. */
  const run = async <T>(
    phase: 'before' | 'after',
    event: { sessionId: string; toolUseId: string; toolName: string; input: unknown; result?: ToolResult },
    schema: z.ZodType<T>,
  ): Promise<T> => {
    const blocked = plugin.blocked();
    if (blocked !== undefined) throw new Error(blocked);
    const outcome = await plugin.sandbox.hook(
      plugin.id,
      plugin.version,
      {
        callId: nextCallId(),
        phase,
        event,
        config: plugin.config ?? null,
        maxReplyChars: replyCharsFor(plugin.limits.maxResultChars),
        logs: plugin.logs,
      },
      { log: () => {}, progress: () => {} },
    );
    if (outcome.kind === 'limit') throw new Error(outcome.message);
    const reply = hookReplySchema.safeParse(outcome.reply);
    if (!reply.success) throw new Error(`the hook sent a malformed reply: ${z.prettifyError(reply.error)}`);
    if (reply.data.kind === 'error') throw new Error(reply.data.message);
    if (reply.data.kind === 'too-large')
      throw new Error(
        `the hook returned a value over ${reply.data.size} characters of JSON (its plugin's maxResultChars bounds a hook's reply too; ${raiseHint(plugin.id, 'maxResultChars')})`,
      );
    const verdict = schema.safeParse(reply.data.verdict);
    if (!verdict.success)
      throw new Error(`the hook returned an unsupported value: ${z.prettifyError(verdict.error)}`);
    return verdict.data;
  };
  const callOf = (event: { sessionId: string; toolUseId: string; toolName: string; input: unknown }) => ({
    sessionId: event.sessionId,
    toolUseId: event.toolUseId,
    toolName: event.toolName,
    input: event.input,
  });
  return {
    name: `plugin:${plugin.id}`,
    ...(before
      ? {
          beforeToolCall: async (event): Promise<BeforeToolCallResult> => {
            if (!applies(event.descriptor.owner)) return undefined;
            return (await run('before', callOf(event), beforeVerdictSchema)) ?? undefined;
          },
        }
      : {}),
    ...(after
      ? {
          afterToolCall: async (event): Promise<AfterToolCallResult> => {
            if (!applies(event.descriptor.owner)) return undefined;
            return (
              (await run('after', { ...callOf(event), result: event.result }, afterVerdictSchema)) ??
              undefined
            );
          },
        }
      : {}),
  };
}
