import {
  CLIENT_INFO_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { Session } from '../core/dispatch/session.js';
import type { TraceContext } from '../types.js';

/**
 * What a served request says of itself beside its params: the client, the revision, the W3C
 * trace context of its `_meta`; and the owner of the tool it names. Read by the tool handlers
 * for spans and audit records.
 */

/** The MCP client's name: from its initialize (2025-11-25) or its request's envelope (2026-07-28). */
export function clientOf(server: Server, ctx: ServerContext): { client?: string } {
  const envelope = ctx.mcpReq.envelope as { [CLIENT_INFO_META_KEY]?: { name?: unknown } } | undefined;
  const name = envelope?.[CLIENT_INFO_META_KEY]?.name ?? server.getClientVersion()?.name;
  return typeof name === 'string' ? { client: name } : {};
}

/** The owner of the tool `name` names in `session`, for an audit record. */
export function ownerOf(session: Session, name: string): { owner?: string } {
  const owner = session.ownerOf(name);
  return owner === undefined ? {} : { owner };
}

/** The revision a request speaks: its envelope's (2026-07-28), else the one its session negotiated. */
export function protocolOf(server: Server, ctx: ServerContext): string {
  const envelope = ctx.mcpReq.envelope as { [PROTOCOL_VERSION_META_KEY]?: unknown } | undefined;
  const version = envelope?.[PROTOCOL_VERSION_META_KEY];
  return typeof version === 'string' ? version : (server.getNegotiatedProtocolVersion() ?? 'unknown');
}

/** The W3C trace context of a request's `_meta`, when it carries a `traceparent`. */
export function traceOf(ctx: ServerContext): { trace?: TraceContext } {
  const meta = ctx.mcpReq._meta as Record<string, unknown> | undefined;
  const traceparent = meta?.traceparent;
  if (typeof traceparent !== 'string') return {};
  const { tracestate, baggage } = meta as { tracestate?: unknown; baggage?: unknown };
  return {
    trace: {
      traceparent,
      ...(typeof tracestate === 'string' ? { tracestate } : {}),
      ...(typeof baggage === 'string' ? { baggage } : {}),
    },
  };
}
