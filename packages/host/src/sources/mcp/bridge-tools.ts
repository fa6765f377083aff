import { createHash } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/client';
import type {
  ContentBlock,
  HiddenToolPlanEntry,
  ToolAnnotations,
  ToolDescriptor,
  ToolResult,
} from '@toolhost/plugin-sdk';
import * as z from 'zod';
import type { OwnDeadline } from '../../config/limits.js';
import { toolResultSchema } from '../../core/wrap/result-schema.js';
import { issuesText, zodIssues } from '../../util/zod-issues.js';
import type { ServerJail } from './server-jail.js';

/**
 * Pure helpers of the MCP bridge: how a server's tools are named, described and hidden, and how
 * what a server answers becomes a `ToolResult` or an error a person can read.
 */

const MAX_NAME = 64;
const HASH_CHARS = 8;

/**
 * The Map name of `tool` on `server`: `mcp__<server>__<tool>`, with every character outside
 * `[A-Za-z0-9_-]` turned into `_`. A name longer than 64 characters keeps its first 55 and ends
 * with `_` and 8 hex characters of a hash of the original, so two long names that share a prefix
 * still differ, and the same tool always gets the same name.
 */
export function bridgedToolName(server: string, tool: string): string {
  const original = `mcp__${server}__${tool}`;
  const safe = original.replace(/[^A-Za-z0-9_-]/g, '_');
  if (safe.length <= MAX_NAME) return safe;
  const hash = createHash('sha256').update(original).digest('hex').slice(0, HASH_CHARS);
  return `${safe.slice(0, MAX_NAME - HASH_CHARS - 1)}_${hash}`;
}

function annotationsOf(tool: Tool): ToolAnnotations | undefined {
  const source = tool.annotations;
  if (source === undefined) return undefined;
  const picked: { -readonly [K in keyof ToolAnnotations]: ToolAnnotations[K] } = {};
  if (typeof source.title === 'string') picked.title = source.title;
  if (typeof source.readOnlyHint === 'boolean') picked.readOnlyHint = source.readOnlyHint;
  if (typeof source.destructiveHint === 'boolean') picked.destructiveHint = source.destructiveHint;
  if (typeof source.idempotentHint === 'boolean') picked.idempotentHint = source.idempotentHint;
  if (typeof source.openWorldHint === 'boolean') picked.openWorldHint = source.openWorldHint;
  return Object.keys(picked).length === 0 ? undefined : picked;
}

const iconSchema = z.object({
  src: z.string().max(8192),
  mimeType: z.string().max(200).optional(),
  sizes: z.array(z.string().max(50)).max(20).optional(),
  theme: z.enum(['light', 'dark']).optional(),
});
const iconsSchema = z.array(iconSchema).max(20);
/** Largest `_meta` kept from a server, as JSON: it is sent again with every `tools/list`. */
const MAX_META_CHARS = 16 * 1024;

/** A server's `_meta` object, kept when it is a plain object of bounded size. */
export function metaOf(value: unknown): Readonly<Record<string, unknown>> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const json = JSON.stringify(value);
  if (json === undefined || json.length > MAX_META_CHARS) return undefined;
  return JSON.parse(json) as Record<string, unknown>;
}

/** The descriptor of a server's tool, under its bridged `name`; the executor keeps the original. */
export function bridgedDescriptor(serverId: string, tool: Tool, name: string): ToolDescriptor {
  const title = tool.title ?? tool.annotations?.title;
  const annotations = annotationsOf(tool);
  const icons = iconsSchema.safeParse((tool as { icons?: unknown }).icons);
  const meta = metaOf((tool as { _meta?: unknown })._meta);
  return {
    name,
    ...(title === undefined ? {} : { title }),
    description: tool.description ?? title ?? '',
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema }),
    owner: { kind: 'mcp', serverId },
    executor: { kind: 'mcp', serverId, toolName: tool.name },
    ...(annotations === undefined ? {} : { annotations }),
    ...(icons.success && icons.data.length > 0 ? { icons: icons.data } : {}),
    ...(meta === undefined ? {} : { meta }),
  };
}

const annotationsSchema = z.object({
  audience: z.array(z.enum(['user', 'assistant'])).optional(),
  priority: z.number().optional(),
  lastModified: z.string().optional(),
});

/**
 * Checks what a server answered to `tools/call` and keeps what a `ToolResult` carries: every kind of
 * content block (with its annotations), `isError`, `structuredContent` and `_meta` (as `meta`).
 * Unknown fields are dropped. Throws when the answer is not a tool result.
 */
export function toBridgedResult(serverId: string, toolName: string, raw: unknown): ToolResult {
  const parsed = toolResultSchema.safeParse(raw);
  if (!parsed.success) {
    throw new Error(
      `MCP server "${serverId}" returned an invalid result for tool "${toolName}": ${issuesText(zodIssues(parsed.error).slice(0, 5))}`,
    );
  }
  const rawContent = (raw as { content: readonly { annotations?: unknown }[] }).content;
  const content = parsed.data.content.map((block, index): ContentBlock => {
    const annotations = annotationsSchema.safeParse(rawContent[index]?.annotations);
    return annotations.success && rawContent[index]?.annotations !== undefined
      ? { ...block, annotations: annotations.data }
      : block;
  });
  return {
    content,
    ...(parsed.data.isError === undefined ? {} : { isError: parsed.data.isError }),
    ...(parsed.data.structuredContent === undefined
      ? {}
      : { structuredContent: parsed.data.structuredContent }),
    ...resultMeta((raw as { _meta?: unknown })._meta),
  };
}

function resultMeta(value: unknown): { meta?: Readonly<Record<string, unknown>> } {
  const meta = metaOf(value);
  return meta === undefined ? {} : { meta };
}

/** The message of anything thrown, with its cause's when that says more (`fetch failed`: why). */
export function messageWithCause(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: { message?: unknown } }).cause;
  return typeof cause?.message === 'string' && cause.message !== '' && !error.message.includes(cause.message)
    ? `${error.message}: ${cause.message}`
    : error.message;
}

/**
 * The JSON-RPC code of an SDK error (`McpError`), read as data rather than with `instanceof`: a
 * second copy of the SDK would fail that test. JSON-RPC codes are negative; HTTP errors of the
 * transport carry the (positive) status in `code` and are not protocol errors.
 */
export function protocolCode(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'number' && code < 0 ? code : undefined;
}

/**
 * The SDK's own failures (`SdkError`: a timeout, a closed connection…) carry a string code, read as
 * data for the same reason.
 */
export function sdkCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/** The SDK's code of a request that got no answer in time. */
export const REQUEST_TIMEOUT = 'REQUEST_TIMEOUT';
/** The SDK's code of a request whose connection closed first. */
export const CONNECTION_CLOSED = 'CONNECTION_CLOSED';

/** Whether an HTTP transport's failure means the server cannot be reached (so: reconnect). */
export function isUnreachable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { name, message, code, status } = error as {
    name?: unknown;
    message?: unknown;
    code?: unknown;
    status?: unknown;
  };
  // undici's network failure, or a 404 for our session: the server restarted and forgot us.
  return (name === 'TypeError' && message === 'fetch failed') || code === 404 || status === 404;
}

/** The message of a `tools/call` that failed, naming the server. */
export function callFailureMessage(
  serverId: string,
  toolName: string,
  error: unknown,
  timeout: OwnDeadline,
): string {
  switch (sdkCode(error)) {
    case REQUEST_TIMEOUT:
      return `MCP server "${serverId}" did not answer within ${timeout.ms} ms (tool "${toolName}"; limit: ${timeout.setting})`;
    case CONNECTION_CLOSED:
      return `MCP server "${serverId}" is unavailable: the connection closed while tool "${toolName}" was running`;
  }
  switch (protocolCode(error)) {
    case undefined:
      return `MCP server "${serverId}" failed to run tool "${toolName}": ${messageWithCause(error)}`;
    default:
      return `MCP server "${serverId}" answered the call to tool "${toolName}" with an error: ${withoutSdkPrefix(messageWithCause(error))}`;
  }
}

/**
 * The SDK's `McpError` puts `MCP error <code>: ` before its message, and a server built on the SDK
 * sends that whole message, so a client's error reads `MCP error -32603: MCP error -32603: boom`.
 * The message above already says the server answered with an error: keep only what it said.
 */
function withoutSdkPrefix(message: string): string {
  return message.replace(/^(?:MCP error -?\d+: )+/, '');
}

/** A server's tool list as the bridge offers it: callable tools, tools it cannot run, and name clashes. */
export interface BridgedToolList<E> {
  readonly tools: readonly { readonly descriptor: ToolDescriptor; readonly executor: E }[];
  readonly blocked: readonly HiddenToolPlanEntry[];
  readonly warnings: readonly string[];
}

/**
 * Bridges `server`'s `tools`: each named by {@link bridgedToolName} (the first of two that share a
 * bridged name wins, the other is a warning), one that runs only as an MCP task hidden as
 * `mcp-unavailable`, the rest given `executorOf`'s executor.
 */
export function bridgeToolList<E>(
  server: string,
  tools: readonly Tool[],
  executorOf: (tool: Tool) => E,
): BridgedToolList<E> {
  const bridged: { descriptor: ToolDescriptor; executor: E }[] = [];
  const blocked: HiddenToolPlanEntry[] = [];
  const warnings: string[] = [];
  const seen = new Map<string, string>();
  for (const tool of tools) {
    const name = bridgedToolName(server, tool.name);
    const first = seen.get(name);
    if (first !== undefined) {
      warnings.push(
        `tools "${first}" and "${tool.name}" of MCP server "${server}" are both named "${name}" once bridged; kept "${first}"`,
      );
      continue;
    }
    seen.set(name, tool.name);
    const descriptor = bridgedDescriptor(server, tool, name);
    if (tool.execution?.taskSupport === 'required') {
      const message = `tool "${tool.name}" of MCP server "${server}" can only run as an MCP task, which the bridge does not support`;
      blocked.push({ descriptor, diagnostics: [{ reason: 'mcp-unavailable', message }] });
      continue;
    }
    bridged.push({ descriptor, executor: executorOf(tool) });
  }
  return { tools: bridged, blocked, warnings };
}

/**
 * A result with what the server's jail refused during the call added as a last text block, so a
 * model (and a person) reads which path or host was refused and the key that grants it, not
 * only the server's `EACCES` or `ECONNREFUSED`. The result's own text is read for paths too.
 */
export function withRefusals(result: ToolResult, jail: ServerJail | undefined, mark: number): ToolResult {
  if (jail === undefined) return result;
  for (const block of result.content) if (block.type === 'text') jail.judge(block.text);
  const refused = jail.since(mark);
  if (refused.length === 0) return result;
  return { ...result, content: [...result.content, { type: 'text', text: `[jail] ${refused.join('; ')}` }] };
}
