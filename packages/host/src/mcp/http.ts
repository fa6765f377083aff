import { randomUUID } from 'node:crypto';
import {
  createServer,
  type Server as HttpServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { ToolHost } from '../host.js';
import { createMcpServer, type McpServeOptions } from './server.js';

export interface McpHttpOptions extends McpServeOptions {
  /** Default 0 (any free port). */
  readonly port?: number;
  /** Default `127.0.0.1`: the server is for this machine unless told otherwise. */
  readonly hostname?: string;
  /** Host names accepted in the `Host` header (port ignored); default localhost names. */
  readonly allowedHosts?: readonly string[];
  /** Host names accepted in an `Origin` header; default the same as `allowedHosts`. */
  readonly allowedOrigins?: readonly string[];
  /** Largest request body, bytes (default 4 MiB). */
  readonly maxBodyBytes?: number;
}

export interface McpHttpServer {
  readonly url: string;
  readonly port: number;
  /** MCP sessions open now. */
  readonly sessions: number;
  close(): Promise<void>;
}

const LOCAL_HOSTS = ['127.0.0.1', 'localhost', '[::1]'];

function hostnameOf(value: string): string | undefined {
  try {
    return new URL(value.includes('://') ? value : `http://${value}`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

function reject(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

async function readBody(req: IncomingMessage, limit: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new Error(`request body over ${limit} bytes`);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : JSON.parse(text);
}

/**
 * Serves a host over MCP streamable HTTP at `/mcp`, bound to 127.0.0.1 by default. Every request
 * is checked against DNS rebinding: the `Host` header, and the `Origin` header when a browser sends
 * one, must name an allowed host. Each MCP session gets its own host session (its own hooks lock).
 */
export async function serveHttp(host: ToolHost, options: McpHttpOptions = {}): Promise<McpHttpServer> {
  const allowedHosts = new Set((options.allowedHosts ?? LOCAL_HOSTS).map((h) => h.toLowerCase()));
  const allowedOrigins = new Set((options.allowedOrigins ?? [...allowedHosts]).map((h) => h.toLowerCase()));
  const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
  interface McpSession {
    readonly transport: StreamableHTTPServerTransport;
    readonly dispose: () => void;
    /** Open GET streams: server notifications not tied to a request can only travel there. */
    streams: number;
    /** A list_changed that found no open stream, sent when one opens. */
    pending?: (() => void) | undefined;
  }
  const sessions = new Map<string, McpSession>();

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/mcp') return reject(res, 404, 'not found: the MCP endpoint is /mcp');
    const hostHeader = hostnameOf(req.headers.host ?? '');
    if (hostHeader === undefined || !allowedHosts.has(hostHeader)) {
      return reject(res, 403, `forbidden: Host "${req.headers.host ?? ''}" is not allowed`);
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedOrigins.has(hostnameOf(origin) ?? '')) {
      return reject(res, 403, `forbidden: Origin "${origin}" is not allowed`);
    }
    const sessionId = req.headers['mcp-session-id'];
    const existing = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (req.method === 'POST') {
      let body: unknown;
      try {
        body = await readBody(req, maxBody);
      } catch (error) {
        return reject(res, 400, `bad request: ${(error as Error).message}`);
      }
      if (existing !== undefined) return existing.transport.handleRequest(req, res, body);
      if (sessionId !== undefined) return reject(res, 404, 'unknown MCP session; initialize again');
      if (!isInitializeRequest(body))
        return reject(res, 400, 'bad request: the first request must be initialize');
      let entry: McpSession | undefined;
      const { server, dispose } = createMcpServer(host, options, (send) => {
        if (entry === undefined) return;
        if (entry.streams > 0) send();
        else entry.pending = send;
      });
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          entry = { transport, dispose, streams: 0 };
          sessions.set(id, entry);
        },
      });
      transport.onclose = () => {
        if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
        dispose();
      };
      await server.connect(transport);
      return transport.handleRequest(req, res, body);
    }
    if (existing === undefined) return reject(res, 400, 'bad request: missing or unknown mcp-session-id');
    if (req.method === 'GET') {
      existing.streams += 1;
      res.once('close', () => {
        existing.streams -= 1;
      });
      const pending = existing.pending;
      existing.pending = undefined;
      // The stream opens inside handleRequest; the deferred notification follows it.
      if (pending !== undefined) setImmediate(pending);
    }
    return existing.transport.handleRequest(req, res);
  };

  const server: HttpServer = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) reject(res, 500, `internal error: ${(error as Error)?.message ?? String(error)}`);
      else res.end();
    });
  });
  await new Promise<void>((resolve, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? 0, options.hostname ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}/mcp`,
    port: address.port,
    get sessions() {
      return sessions.size;
    },
    async close() {
      for (const { transport } of [...sessions.values()]) await transport.close().catch(() => {});
      sessions.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
