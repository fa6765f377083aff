import {
  type GetPromptResult,
  type InputRequiredResult,
  isInputRequiredResult,
  ProtocolErrorCode,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { ToolContext } from '@toolhost/plugin-sdk';
import { askThrough, elicitThrough } from '../sources/ask.js';
import type { InputAsker } from '../types.js';
import { messageOf } from '../util/errors.js';
import { type approvalStateCodec, modernCall, roundEnd, roundOf } from './approval-2026.js';
import { legacyAsker, modernAsker } from './ask.js';

/**
 * Prompts an embedder serves beside the host's tools (`McpServeOptions.prompts`): toolhost itself
 * has no source of prompts, but an application that serves a host over MCP may add its own, and
 * they ask the client as a tool's `ctx.ask` does, through the same machinery: over 2025-11-25 the
 * server sends the client each request; over 2026-07-28 `prompts/get` ends with `input_required`
 * and is run again from its start with the answers (earlier rounds' answers ride the sealed
 * `requestState`, bound to `prompts/get`, the prompt's name, its exact arguments and the caller).
 * Forms go only to clients `approvals.mcpClients` lists, as a tool's do.
 */

/** One argument of a prompt, as `prompts/list` shows it. */
export interface McpPromptArgument {
  readonly name: string;
  readonly description?: string;
  /** A `prompts/get` without it is refused (InvalidParams) before the prompt runs. */
  readonly required?: boolean;
}

/**
 * What a prompt's `get` receives beside its arguments: a tool's `ctx.ask` and `ctx.elicit` (over
 * 2026-07-28 `get` runs again from its start with the answers), and the request's signal.
 */
export interface McpPromptContext extends Pick<ToolContext, 'ask' | 'elicit'> {
  /** Aborted when the client cancels the request. */
  readonly signal: AbortSignal;
}

/** A prompt served over MCP (`prompts/list`, `prompts/get`). */
export interface McpPrompt {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly arguments?: readonly McpPromptArgument[];
  /** The prompt's messages for `args`; code before an ask must be safe to run again. */
  get(
    args: Readonly<Record<string, string>>,
    ctx: McpPromptContext,
  ): GetPromptResult | Promise<GetPromptResult>;
}

/** How the prompts of one server ask: the 2025 connection's client, or the 2026 request's round. */
export interface PromptServing {
  readonly prompts: readonly McpPrompt[];
  /** `approvals.mcpClients` in force. */
  readonly clients: () => readonly string[];
  /** Who asks (the principal's id), bound into a 2026 state. */
  readonly principal?: string | undefined;
  /** 2026-07-28: the state's seal (the serve's, as its tools'); absent over 2025-11-25. */
  readonly modern?: { readonly codec: ReturnType<typeof approvalStateCodec> };
}

/** `prompts/list` and `prompts/get` of `serving.prompts` on `server`. */
export function registerPrompts(server: Server, serving: PromptServing): void {
  const byName = new Map(serving.prompts.map((p) => [p.name, p]));
  server.setRequestHandler('prompts/list', async () => ({
    prompts: serving.prompts.map((p) => ({
      name: p.name,
      ...(p.title === undefined ? {} : { title: p.title }),
      ...(p.description === undefined ? {} : { description: p.description }),
      ...(p.arguments === undefined ? {} : { arguments: p.arguments.map((a) => ({ ...a })) }),
    })),
  }));
  server.setRequestHandler('prompts/get', async (request, ctx) => {
    const { name } = request.params;
    const args = request.params.arguments ?? {};
    const prompt = byName.get(name);
    if (prompt === undefined) {
      const known = [...byName.keys()];
      throw invalidParams(
        `no prompt named ${JSON.stringify(name)}; this server serves ${known.length === 0 ? 'no prompts' : `the prompts ${known.map((k) => JSON.stringify(k)).join(', ')}`}`,
      );
    }
    const missing = (prompt.arguments ?? []).filter((a) => a.required === true && args[a.name] === undefined);
    if (missing.length > 0) {
      throw invalidParams(
        `prompt ${JSON.stringify(name)} needs the argument${missing.length === 1 ? '' : 's'} ${missing.map((a) => JSON.stringify(a.name)).join(', ')}`,
      );
    }
    return runPrompt(server, serving, prompt, args, ctx);
  });
}

async function runPrompt(
  server: Server,
  serving: PromptServing,
  prompt: McpPrompt,
  args: Readonly<Record<string, string>>,
  ctx: ServerContext,
): Promise<GetPromptResult | InputRequiredResult> {
  const { modern } = serving;
  const running = modern === undefined ? undefined : modernCall(ctx, prompt.name, args, serving.principal);
  const asker: InputAsker =
    running === undefined
      ? legacyAsker(server, ctx, serving.clients)
      : (requests, optional) => modernAsker(roundOf(running), serving.clients)(requests, optional);
  const promptCtx: McpPromptContext = {
    signal: ctx.mcpReq.signal,
    ask: (requests, options) => askThrough(asker, { requests, optional: options?.optional === true }),
    elicit: (params, key) => elicitThrough(asker, params, key),
  };
  let result: GetPromptResult | undefined;
  let failure: unknown;
  try {
    result = await prompt.get(args, promptCtx);
  } catch (error) {
    failure = error;
  }
  // The round stopped at an ask: the answers come with the retry (as for a tool's round).
  if (running !== undefined && modern !== undefined) {
    const ended = await roundEnd(running, modern.codec, prompt.name, args);
    if (isInputRequiredResult(ended)) return ended;
    if (ended !== undefined) throw internalError(textOf(ended));
  }
  if (result === undefined) {
    throw internalError(`prompt ${JSON.stringify(prompt.name)} failed: ${messageOf(failure)}`);
  }
  return result;
}

function invalidParams(message: string): Error {
  return Object.assign(new Error(message), { code: ProtocolErrorCode.InvalidParams });
}

function internalError(message: string): Error {
  return Object.assign(new Error(message), { code: ProtocolErrorCode.InternalError });
}

/** The text of an error result (roundEnd's: the answers outgrew the state). */
function textOf(result: { content?: unknown }): string {
  const first = Array.isArray(result.content) ? (result.content[0] as { text?: unknown }) : undefined;
  return typeof first?.text === 'string' ? first.text.replace(/^Tool /, 'Prompt ') : 'the prompt was stopped';
}
