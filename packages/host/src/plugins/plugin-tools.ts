import { randomUUID } from 'node:crypto';
import type { HiddenToolPlanEntry, ToolDescriptor, ToolResult } from '@toolhost/plugin-sdk';
import type { CallReply, PluginManifest, ToolManifest } from '@toolhost/plugin-sdk/protocol';
import * as z from 'zod';
import type { CapabilityProvider } from '../capabilities/index.js';
import { errorResult } from '../results.js';
import type { CallSinks, Sandbox, SandboxLimits, SandboxOutcome } from '../sandbox/types.js';
import type { ExecutionContext, RegisteredTool, ToolHooks } from '../types.js';

const contentBlock = z.union([
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({ type: z.literal('image'), data: z.string(), mimeType: z.string() }),
  z.object({ type: z.literal('audio'), data: z.string(), mimeType: z.string() }),
  z.object({
    type: z.literal('resource'),
    resource: z.union([
      z.object({ uri: z.string(), mimeType: z.string().optional(), text: z.string() }),
      z.object({ uri: z.string(), mimeType: z.string().optional(), blob: z.string() }),
    ]),
  }),
  z.object({
    type: z.literal('resource_link'),
    uri: z.string(),
    name: z.string(),
    title: z.string().optional(),
    description: z.string().optional(),
    mimeType: z.string().optional(),
    size: z.number().optional(),
  }),
]);

/** A result from the isolate is re-checked here: the runtime inside is plugin-controlled. */
const toolResultSchema = z.object({
  content: z.array(contentBlock),
  isError: z.boolean().optional(),
  structuredContent: z.record(z.string(), z.unknown()).optional(),
});

/** The descriptor the host builds from a plugin's manifest entry. */
export function pluginDescriptor(pluginId: string, tool: ToolManifest): ToolDescriptor {
  return {
    ...tool,
    owner: { kind: 'plugin', pluginId },
    executor: { kind: 'plugin', pluginId, toolName: tool.name },
  };
}

/** A hidden entry for a plugin whose tools cannot be listed (it did not load). */
export function pluginPlaceholder(pluginId: string, description: string): ToolDescriptor {
  return {
    name: `plugin:${pluginId}`,
    description,
    inputSchema: { type: 'object' },
    owner: { kind: 'plugin', pluginId },
  };
}

/** Hidden entries for a plugin: one per tool when the names are known, else one for the plugin. */
export function hiddenEntries(
  pluginId: string,
  tools: readonly ToolManifest[] | readonly string[] | undefined,
  reason: 'plugin-disabled' | 'plugin-load-failed',
  message: string,
): HiddenToolPlanEntry[] {
  const diagnostics = [{ reason, message }];
  if (tools === undefined || tools.length === 0)
    return [{ descriptor: pluginPlaceholder(pluginId, message), diagnostics }];
  return tools.map((tool) => ({
    descriptor:
      typeof tool === 'string'
        ? { ...pluginPlaceholder(pluginId, message), name: tool }
        : pluginDescriptor(pluginId, tool),
    diagnostics,
  }));
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

function issuesText(issues: readonly { path: string; message: string }[]): string {
  return issues.map((i) => `at "${i.path}": ${i.message}`).join('; ');
}

/** Turns the sandbox's answer to a call into the result the model reads. */
function resultOf(
  pluginId: string,
  toolName: string,
  outcome: SandboxOutcome<CallReply>,
  limits: SandboxLimits,
): ToolResult {
  if (outcome.kind === 'limit') {
    const reset =
      outcome.limit === 'quarantined' ? '' : '; its isolate was reset and the next call starts fresh';
    return errorResult(`Tool "${toolName}" of plugin "${pluginId}" was stopped: ${outcome.message}${reset}`);
  }
  const reply = outcome.reply;
  switch (reply.kind) {
    case 'ok': {
      const checked = toolResultSchema.safeParse(reply.result);
      if (!checked.success)
        return errorResult(
          `Tool "${toolName}" returned a malformed result: ${z.prettifyError(checked.error)}`,
        );
      return checked.data as ToolResult;
    }
    case 'invalid-input':
      return errorResult(`Invalid input for tool "${toolName}": ${issuesText(reply.issues)}`);
    case 'invalid-config':
      return errorResult(`Plugin "${pluginId}" has an invalid config: ${issuesText(reply.issues)}`);
    case 'unknown-tool':
      return errorResult(`Plugin "${pluginId}" no longer has a tool "${toolName}"`);
    case 'too-large':
      return errorResult(
        `Tool "${toolName}" returned a result over the limit maxResultChars (${limits.maxResultChars} characters)`,
      );
    case 'error':
      return errorResult(`Tool "${toolName}" failed: ${reply.message}`);
  }
}

/** Everything the tools and hooks of one loaded plugin need to reach their isolate. */
export interface LoadedPlugin {
  readonly id: string;
  readonly manifest: PluginManifest;
  readonly sandbox: Sandbox;
  readonly limits: SandboxLimits;
  readonly config: unknown;
  readonly capabilities: CapabilityProvider;
  readonly env: Readonly<Record<string, string>>;
  /** `all`: the plugin's hooks see every tool's calls; `own` (default): only its own tools'. */
  readonly hookScope: 'own' | 'all';
}

/** The registered tools of a loaded plugin; their executors call into its isolate. */
export function pluginTools(plugin: LoadedPlugin): RegisteredTool[] {
  return plugin.manifest.tools.map((tool) => {
    const descriptor = pluginDescriptor(plugin.id, tool);
    return {
      descriptor,
      source: 'plugin',
      sourceId: plugin.id,
      executor: {
        ref: { kind: 'plugin', pluginId: plugin.id, toolName: tool.name },
        async run(input, ctx) {
          const outcome = await plugin.sandbox.call(
            plugin.id,
            {
              callId: randomUUID(),
              toolName: tool.name,
              toolUseId: ctx.toolUseId,
              sessionId: ctx.sessionId,
              input,
              config: plugin.config ?? null,
              env: plugin.env,
              envGranted: plugin.capabilities.envGranted,
              maxResultChars: plugin.limits.maxResultChars,
            },
            (capability, args, signal) => plugin.capabilities.invoke(capability, args, signal),
            sinksOf(ctx),
            ctx.signal,
          );
          return resultOf(plugin.id, tool.name, outcome, plugin.limits);
        },
      },
    };
  });
}

const beforeVerdict = z.union([
  z.null(),
  z.strictObject({ input: z.unknown() }),
  z.strictObject({ block: z.literal(true), reason: z.string().max(10_000) }),
]);
const afterVerdict = z.union([
  z.null(),
  z.strictObject({
    content: z.array(contentBlock).optional(),
    structuredContent: z.record(z.string(), z.unknown()).optional(),
    isError: z.boolean().optional(),
  }),
]);

/** Host hooks that run a plugin's declared hooks inside its isolate. */
export function pluginHooks(plugin: LoadedPlugin): ToolHooks | undefined {
  const { before, after } = plugin.manifest.hooks;
  if (!before && !after) return undefined;
  const applies = (owner: ToolDescriptor['owner']) =>
    plugin.hookScope === 'all' || (owner.kind === 'plugin' && owner.pluginId === plugin.id);
  const run = async (
    phase: 'before' | 'after',
    event: { sessionId: string; toolUseId: string; toolName: string; input: unknown; result?: ToolResult },
  ) => {
    const outcome = await plugin.sandbox.hook(
      plugin.id,
      {
        callId: randomUUID(),
        phase,
        event,
        config: plugin.config ?? null,
        maxResultChars: plugin.limits.maxResultChars,
      },
      { log: () => {}, progress: () => {} },
    );
    if (outcome.kind === 'limit') throw new Error(outcome.message);
    if (outcome.reply.kind === 'error') throw new Error(outcome.reply.message);
    if (outcome.reply.kind === 'too-large') throw new Error('the hook returned a value over maxResultChars');
    return outcome.reply.verdict;
  };
  return {
    name: `plugin:${plugin.id}`,
    ...(before
      ? {
          beforeToolCall: async (event) => {
            if (!applies(event.descriptor.owner)) return undefined;
            const verdict = beforeVerdict.safeParse(
              await run('before', {
                sessionId: event.sessionId,
                toolUseId: event.toolUseId,
                toolName: event.toolName,
                input: event.input,
              }),
            );
            if (!verdict.success)
              throw new Error(`the hook returned an unsupported value: ${z.prettifyError(verdict.error)}`);
            return verdict.data ?? undefined;
          },
        }
      : {}),
    ...(after
      ? {
          afterToolCall: async (event) => {
            if (!applies(event.descriptor.owner)) return undefined;
            const verdict = afterVerdict.safeParse(
              await run('after', {
                sessionId: event.sessionId,
                toolUseId: event.toolUseId,
                toolName: event.toolName,
                input: event.input,
                result: event.result,
              }),
            );
            if (!verdict.success)
              throw new Error(`the hook returned an unsupported value: ${z.prettifyError(verdict.error)}`);
            return (verdict.data ?? undefined) as ReturnType<NonNullable<ToolHooks['afterToolCall']>> &
              object;
          },
        }
      : {}),
  };
}
