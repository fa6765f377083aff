/** `toolhost call --url`: one call to a running MCP server over streamable HTTP, with the SDK client. */

import * as path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { ToolLogger, ToolResult } from '@toolhost/plugin-sdk';
import { DEFAULT_TOKEN_NAME, readTokensSync, TOKENS_FILE } from '../serve/auth/tokens.js';
import { messageOf } from '../util/errors.js';
import { isDirectory } from '../util/stat.js';
import { UsageError } from './args.js';
import { version } from './version.js';

const LEVELS: Record<string, keyof ToolLogger> = {
  debug: 'debug',
  info: 'info',
  notice: 'info',
  warning: 'warn',
};

function urlOf(text: string): URL {
  try {
    const url = new URL(text);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url;
  } catch {}
  throw new UsageError(
    `--url must be an http(s) URL such as http://127.0.0.1:7337/mcp, not ${JSON.stringify(text)}`,
  );
}

/** A refusal reads as the host wrote it, without the protocol's `MCP error -32602: ` prefix. */
function withoutCode(text: string): string {
  return text.replace(/^(?:MCP error -?\d+: )+/, '');
}

function unprefixed(block: ToolResult['content'][number]): ToolResult['content'][number] {
  return block.type === 'text' ? { ...block, text: withoutCode(block.text) } : block;
}

/**
 * The bearer token `call --url` sends: `--token`, else `$TOOLHOST_TOKEN`, else the `default`
 * token of the project at `--root` (the current folder), if it has one. Never makes a token: a
 * project without one is not the server's.
 */
export async function tokenFor(
  flag: string | undefined,
  root: string | undefined,
): Promise<string | undefined> {
  if (flag !== undefined) return flag;
  const env = process.env.TOOLHOST_TOKEN;
  if (env !== undefined && env !== '') return env;
  const dir = path.resolve(root ?? '.');
  if (!(await isDirectory(dir))) throw new UsageError(`--root ${root ?? '.'}: no such directory`);
  try {
    return readTokensSync(dir).find((t) => t.name === DEFAULT_TOKEN_NAME)?.token;
  } catch (error) {
    throw new UsageError(messageOf(error));
  }
}

/** What `toolhost call` answers the server's approval question (its text as the server put it). */
export type RemoteApprover = (
  question: string,
  signal: AbortSignal,
) => Promise<'allow-once' | 'allow-always' | 'deny'>;

/** The client name `toolhost call --url` announces: what `approvals.mcpClients` must list. */
export const CALL_CLIENT_NAME = 'toolhost-call';

/**
 * Calls `name` on the server at `url`; its log notifications go to `log`. A refusal of the server
 * (unknown or hidden tool: a protocol error) comes back as an error result with its message.
 * The client declares form elicitation, so a server that asks for approval asks `approve` (the
 * terminal or `--yes`); the server decides whether this client's answer counts
 * (`approvals.mcpClients` listing `toolhost-call`). Only toolhost's approval form is answered: any
 * other elicitation is declined.
 */
export async function callOverHttp(
  url: string,
  name: string,
  input: unknown,
  log: (level: keyof ToolLogger, message: string, data?: unknown) => void,
  approve?: RemoteApprover,
  token?: string,
): Promise<ToolResult> {
  const target = urlOf(url);
  const requestInit = token === undefined ? undefined : { headers: { authorization: `Bearer ${token}` } };
  const client = new Client(
    { name: CALL_CLIENT_NAME, version },
    approve === undefined ? {} : { capabilities: { elicitation: { form: {} } } },
  );
  if (approve !== undefined) {
    client.setRequestHandler('elicitation/create', async (request, ctx) => {
      const { params } = request;
      const decision =
        params.mode === 'url'
          ? undefined
          : (params.requestedSchema.properties.decision as { enum?: unknown });
      if (!Array.isArray(decision?.enum) || !decision.enum.includes('allow-once'))
        return { action: 'decline' };
      const choice = await approve(params.message, ctx.mcpReq.signal);
      return choice === 'deny' ? { action: 'decline' } : { action: 'accept', content: { decision: choice } };
    });
  }
  client.setNotificationHandler('notifications/message', (notification) => {
    const { level, data } = notification.params;
    const message =
      typeof data === 'string'
        ? data
        : ((data as { message?: unknown } | null)?.message ?? JSON.stringify(data));
    const extra = (data as { data?: unknown } | null)?.data;
    log(LEVELS[level] ?? 'error', String(message), typeof data === 'string' ? undefined : extra);
  });
  try {
    await client.connect(
      new StreamableHTTPClientTransport(target, requestInit === undefined ? {} : { requestInit }),
    );
  } catch (error) {
    const text = messageOf(error);
    if (/invalid_token|\b401\b|unauthorized/i.test(text)) {
      throw new Error(
        token === undefined
          ? `the MCP server at ${target.href} wants a bearer token and none was found: pass --token, set TOOLHOST_TOKEN, or run from the project folder (--root DIR) whose ${TOKENS_FILE} holds it`
          : `the MCP server at ${target.href} refused the bearer token (401): it is not one of that server's tokens (rotated? toolhost token in its project prints the current one)`,
      );
    }
    throw new Error(
      `cannot reach an MCP server at ${target.href}: ${text} (is toolhost dev or serve --http running?)`,
    );
  }
  try {
    const result = (await client.callTool({
      name,
      arguments: input as Record<string, unknown>,
    })) as ToolResult;
    return result.isError === true ? { ...result, content: result.content.map(unprefixed) } : result;
  } catch (error) {
    return { content: [{ type: 'text', text: withoutCode(messageOf(error)) }], isError: true };
  } finally {
    await client.close();
  }
}
