/**
 * The HTTP endpoint's own answers (those that are not the SDK transport's): JSON-RPC errors with
 * the status that goes with them, the 404 of an unknown session, the 429 of a rate limit and the
 * RFC 9728 document; and the few things read off a request before MCP handles it.
 */
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { RequestId } from '@modelcontextprotocol/server';
import type { AuditSink } from '../audit/trail.js';
import type { RateRefusal } from './rate-limit.js';

/** JSON-RPC error codes of the endpoint's own answers (-32001 as the SDK's "Session not found"). */
export const PARSE_ERROR = -32700;
export const SERVER_ERROR = -32000;
const SESSION_NOT_FOUND = -32001;

export const CLOSE: OutgoingHttpHeaders = { connection: 'close' };

/** The Host header's name, lowercased (its port is not checked: DNS rebinding changes the name). */
export function hostnameOf(value: string): string | undefined {
  try {
    return new URL(value.includes('://') ? value : `http://${value}`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

export function reject(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers?: OutgoingHttpHeaders,
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

export function requestIdOf(message: object): RequestId | undefined {
  const id = (message as { id?: unknown }).id;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

/** A single `tools/call` request's id, tool and input. */
export interface ToolCallRequest {
  readonly id: RequestId;
  readonly name: string;
  readonly input: unknown;
}

/** The tool a single `tools/call` request names (a batch or another method: none). */
export function toolCallOf(body: unknown): ToolCallRequest | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { method, params, id } = body as {
    method?: unknown;
    params?: { name?: unknown; arguments?: unknown };
    id?: unknown;
  };
  if (method !== 'tools/call' || typeof params?.name !== 'string') return undefined;
  if (typeof id !== 'string' && typeof id !== 'number') return undefined;
  return { id, name: params.name, input: params.arguments ?? {} };
}

/**
 * A `tools/call` over a rate limit: recorded in the trail as `rate-limited`, answered `429` with
 * `Retry-After` and a JSON-RPC error naming the limit and when to retry.
 */
export function rateLimited(
  res: ServerResponse,
  call: ToolCallRequest,
  refused: RateRefusal,
  who: { principal: string; session: string },
  audit: AuditSink | undefined,
): void {
  audit?.call({
    principal: who.principal,
    session: who.session,
    hostSession: '-',
    requestId: String(call.id),
    tool: call.name,
    input: call.input,
    policy: 'rate-limited',
    status: 'rate-limited',
    durationMs: 0,
  });
  res.writeHead(429, {
    'content-type': 'application/json',
    'retry-after': String(Math.max(1, Math.ceil(refused.retryAfterMs / 1000))),
  });
  res.end(
    JSON.stringify({
      jsonrpc: '2.0',
      id: call.id,
      error: { code: SERVER_ERROR, message: refused.message, data: { retryAfterMs: refused.retryAfterMs } },
    }),
  );
}

/** RFC 9728 protected resource metadata, public (no token: it says where to get one). */
export function metadata(res: ServerResponse, document: object | undefined): void {
  if (document === undefined) {
    reject(
      res,
      404,
      SERVER_ERROR,
      'not found: this server has no OAuth metadata (serve.auth.oauth is not set)',
    );
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json', 'access-control-allow-origin': '*' });
  res.end(JSON.stringify(document));
}

export function notFound(res: ServerResponse): void {
  // The spec: a terminated or unknown session id gets 404, and the client must initialize again.
  reject(res, 404, SESSION_NOT_FOUND, 'session not found: it ended or never existed; send initialize again');
}
