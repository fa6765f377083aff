import { randomUUID } from 'node:crypto';
import {
  createServer,
  type Server as HttpServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { type InitializeRequest, isInitializeRequest, isLegacyRequest } from '@modelcontextprotocol/server';
import type { AuditTrail } from '../audit/trail.js';
import type { ToolHost } from '../host/host.js';
import { internalsOf } from '../host/internals.js';
import type { Principal } from '../types.js';
import { MAX_TIMER_MS } from '../util/timers.js';
import { httpAuditName, serveAudit } from './audit.js';
import { type AuthGate, createAuthGate } from './auth/gate.js';
import { bothWatches, createDashboard } from './dashboard/index.js';
import {
  CLOSE,
  hostnameOf,
  metadata,
  notFound,
  PARSE_ERROR,
  rateLimited,
  reject,
  requestIdOf,
  SERVER_ERROR,
  toolCallOf,
} from './http-answers.js';
import { readJsonBody } from './http-body.js';
import type { McpHttpOptions, McpHttpServer } from './http-options.js';
import { type HttpSession, SessionTable } from './http-sessions.js';
import { type Link, SessionTransport } from './http-transport.js';
import { ModernPrincipals } from './modern-principals.js';
import { toWebRequest, writeWebResponse } from './node-web.js';
import { checkOption } from './option-check.js';
import { type OriginCheck, originRule } from './origins.js';
import { paramHeaderRejection } from './param-headers.js';
import { RateLimiter } from './rate-limit.js';
import { createMcpServer, type McpServeOptions } from './server.js';
import { closeStalledWrites } from './stalled-writes.js';
import { warmForServing } from './warm.js';

/**
 * How long an idle keep-alive connection stays open, ms. Node's default (5 s) is shorter than a
 * busy client's wait between two requests on one socket: a client that picks a connection the
 * server is closing gets "other side closed" for a POST, which it may not retry. With 5,000 calls
 * in flight, 425 of 20,000 failed so; none at 65 s (longer than the 60 s idle time load
 * balancers commonly use, so they close first).
 */
const KEEP_ALIVE_MS = 65_000;

/** How long a connection may have output waiting with none of it taken by its client, ms. */
const DEFAULT_WRITE_STALL_MS = 60_000;

const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
/**
 * Long enough for a person's pause between two turns of a conversation; a client that keeps the
 * GET stream open (as the SDK client does) is never idle, and an expired client only initializes
 * again. An idle session costs ≈ 12 KB of heap, so leftovers are cheap but must not be forever.
 */
const DEFAULT_SESSION_IDLE_MS = 30 * 60_000;
/** Far above what one machine's clients open; at ≈ 12 KB each, the cap bounds leftovers to ≈ 3 MB. */
const DEFAULT_MAX_SESSIONS = 256;

const LOCAL_HOSTS = ['127.0.0.1', 'localhost', '[::1]'];

/**
 * Serves a host over MCP streamable HTTP at `/mcp`, bound to 127.0.0.1 by default. Every request
 * is checked against DNS rebinding: the `Host` header, and the `Origin` header when a browser sends
 * one, must name an allowed host. Each MCP session gets its own host session (its own hooks lock).
 * Sessions end when the client deletes them, when idle for `sessionIdleMs`, when a new client needs
 * the place of an idle (or only listening) one at `maxSessions`, and when the server closes; an initialize that does
 * not succeed leaves nothing behind.
 */
export async function serveHttp(host: ToolHost, options: McpHttpOptions = {}): Promise<McpHttpServer> {
  checkOption('serveHttp', 'maxBodyBytes', options.maxBodyBytes);
  checkOption('serveHttp', 'sessionIdleMs', options.sessionIdleMs, MAX_TIMER_MS);
  checkOption('serveHttp', 'maxSessions', options.maxSessions);
  checkOption('serveHttp', 'writeStallMs', options.writeStallMs, MAX_TIMER_MS);
  warmForServing(host);
  const hostname = options.hostname ?? '127.0.0.1';
  const configured = host.config.serve?.auth;
  const oauth = options.auth?.oauth ?? configured?.oauth;
  const gate: AuthGate = await createAuthGate(host.root, hostname, {
    ...options.auth,
    ...(options.auth?.tokens === undefined && configured?.tokens === false ? { tokens: false } : {}),
    ...(oauth === undefined ? {} : { oauth }),
  });
  const allowedHosts = new Set(
    [...(options.allowedHosts ?? host.config.serve?.allowedHosts ?? LOCAL_HOSTS), ...gate.hosts].map((h) =>
      h.toLowerCase(),
    ),
  );
  const origins = originRule(options.allowedOrigins ?? [...allowedHosts]);
  // Read at each use, so a config reload applies (the idle time to sessions opened after it).
  const maxBody = () => options.maxBodyBytes ?? host.config.serve?.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const maxSessions = () => options.maxSessions ?? host.config.serve?.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const sessions = new SessionTable<Link>({
    idleMs: () => options.sessionIdleMs ?? host.config.serve?.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS,
    onClose: options.onSessionClose,
  });
  let closing = false;
  // Origins carry the port, known only once listening: nothing is answered before that.
  let originAllowed: OriginCheck = () => false;
  let ownOrigins = '';
  const dashboard =
    options.dashboard === undefined
      ? undefined
      : createDashboard({
          host,
          options: options.dashboard,
          maxBody,
          originAllowed: (origin) => originAllowed(origin),
        });
  const ownWatch = options.watchCall;
  const serveOptions: McpServeOptions =
    dashboard === undefined
      ? options
      : { ...options, watchCall: (call) => bothWatches(dashboard.watchCall(call), ownWatch?.(call)) };

  // 2026-07-28: every request stands alone; the SDK's entry answers it from a fresh server over
  // the one host session all of its principal's requests share, and checks its envelope and headers.
  // Made once listening (its file is named for the port); requests come only after that.
  let audit: AuditTrail | undefined;
  let stopAudit: (() => void) | undefined;
  const limiter = new RateLimiter(() => host.config.serve?.rateLimits);
  const modern = new ModernPrincipals(host, serveOptions, {
    call: (call) => audit?.call(call),
  });
  const toolSchema = (name: string) => internalsOf(host).registry.tools.get(name)?.descriptor.inputSchema;

  const initialize = async (
    req: IncomingMessage,
    res: ServerResponse,
    message: InitializeRequest,
    principal: Principal,
  ) => {
    if (closing) return reject(res, 503, SERVER_ERROR, 'service unavailable: the MCP server is closing');
    const cap = maxSessions();
    if (sessions.size >= cap && !sessions.evict()) {
      return reject(
        res,
        503,
        SERVER_ERROR,
        `service unavailable: ${sessions.size} MCP sessions are open, the most allowed (maxSessions ${cap}), ` +
          'and each is running a request; raise serve.maxSessions in toolhost.config.json ' +
          '(or the maxSessions option of serveHttp), or have clients end sessions they no longer use (HTTP DELETE)',
      );
    }
    const id = randomUUID();
    let session: HttpSession<Link> | undefined;
    const transport = new SessionTransport(
      {
        sessionIdGenerator: () => id,
        // The spec's session termination (DELETE): freed before the answer leaves.
        onsessionclosed: () => {
          if (session !== undefined) sessions.end(session, 'deleted');
        },
      },
      requestIdOf(message),
    );
    const { server, dispose } = createMcpServer(
      host,
      serveOptions,
      (send) => {
        if (session === undefined || session.ended) return;
        if (session.streams > 0) send();
        else session.pending = send;
      },
      { principal, ...(audit === undefined ? {} : { audit }) },
    );
    // Registered before the table's own listener, so a failed session is ended before it idles.
    res.once('close', () => {
      const delivered = res.writableFinished && res.statusCode === 200 && transport.sessionId === id;
      if (session !== undefined && (!delivered || transport.initFailed)) sessions.end(session, 'failed');
    });
    session = sessions.add(
      id,
      { principal, transport, dispose, close: () => void transport.close().catch(() => {}) },
      res,
    );
    const added = session;
    transport.onclose = () => sessions.end(added, 'closed');
    await server.connect(transport);
    await transport.serve(req, res, message);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const wellKnown = path.startsWith('/.well-known/');
    const page = dashboard !== undefined && path !== '/mcp' && !wellKnown ? dashboard : undefined;
    if (path !== '/mcp' && page === undefined && !wellKnown) {
      return reject(res, 404, SERVER_ERROR, 'not found: the MCP endpoint is /mcp');
    }
    // The dashboard's routes answer `{ error }`; the MCP endpoint, JSON-RPC errors.
    const forbid = (message: string) =>
      page === undefined ? reject(res, 403, SERVER_ERROR, message) : page.refuse(res, 403, message);
    const hostHeader = hostnameOf(req.headers.host ?? '');
    if (hostHeader === undefined || !allowedHosts.has(hostHeader)) {
      return forbid(`forbidden: Host "${req.headers.host ?? ''}" is not allowed`);
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !originAllowed(origin)) {
      return forbid(`forbidden: Origin "${origin}" is not allowed (accepted: ${ownOrigins})`);
    }
    if (page !== undefined) return page.handle(req, res, path);
    if (wellKnown) return metadata(res, gate.metadata(path));
    const auth = await gate.authenticate(req);
    if (!auth.ok) {
      req.resume();
      return writeWebResponse(res, auth.response);
    }
    const { principal } = auth;
    const method = req.method;
    if (method !== 'POST' && method !== 'GET' && method !== 'DELETE') {
      return reject(
        res,
        405,
        SERVER_ERROR,
        `method not allowed: ${method}; /mcp takes POST, GET and DELETE`,
        {
          allow: 'POST, GET, DELETE',
        },
      );
    }
    const header = req.headers['mcp-session-id'];
    const sessionId = typeof header === 'string' ? header : undefined;
    const found = sessionId === undefined ? undefined : sessions.get(sessionId);
    // Another caller's session id is as good as none: it is not theirs to use, nor to learn of.
    const session = found?.link.principal.id === principal.id ? found : undefined;
    // Busy from here (reading the body counts) until the response closes.
    if (session !== undefined) sessions.begin(session, res);
    if (method === 'POST') {
      const limit = maxBody();
      const body = await readJsonBody(req, limit);
      if (body.kind === 'aborted') return void res.destroy();
      if (body.kind === 'too-large') {
        const message = `payload too large: the request body is over ${limit} bytes (serve.maxBodyBytes)`;
        return reject(res, 413, SERVER_ERROR, message, CLOSE);
      }
      if (body.kind === 'not-json') return reject(res, 400, PARSE_ERROR, `parse error: ${body.message}`);
      const call = toolCallOf(body.value);
      const refused = call === undefined ? undefined : limiter.take(principal.id, call.name);
      if (call !== undefined && refused !== undefined) {
        const who = { principal: principal.id, session: sessionId ?? '-' };
        return rateLimited(res, call, refused, who, audit);
      }
      if (session !== undefined) return session.link.transport.serve(req, res, body.value);
      if (sessionId === undefined) {
        const request = toWebRequest(req, res);
        if (!(await isLegacyRequest(request, body.value))) {
          const mismatch = paramHeaderRejection(body.value, request.headers, toolSchema);
          if (mismatch !== undefined) return writeWebResponse(res, mismatch);
          const handler = modern.handlerFor(principal);
          return writeWebResponse(res, await handler.fetch(request, { parsedBody: body.value }));
        }
      }
      // A stale id on an initialize is a client starting over, as a 404 told it to.
      if (isInitializeRequest(body.value)) return initialize(req, res, body.value, principal);
      if (sessionId !== undefined) return notFound(res);
      return reject(
        res,
        400,
        SERVER_ERROR,
        'bad request: without mcp-session-id the request must be initialize',
      );
    }
    if (session === undefined) {
      if (sessionId !== undefined) return notFound(res);
      return reject(res, 400, SERVER_ERROR, `bad request: ${method} needs the mcp-session-id header`);
    }
    if (method === 'GET') {
      session.streams += 1;
      res.once('close', session.streamClosed);
      const pending = session.pending;
      session.pending = undefined;
      // The stream opens inside handleRequest; the deferred notification follows it.
      if (pending !== undefined) setImmediate(pending);
    }
    return session.link.transport.serve(req, res);
  };

  const server: HttpServer = createServer({ keepAliveTimeout: KEEP_ALIVE_MS }, (req, res) => {
    handle(req, res).catch((error: unknown) => {
      const message = `internal error: ${(error as Error)?.message ?? String(error)}`;
      if (!res.headersSent) reject(res, 500, SERVER_ERROR, message);
      else res.end();
    });
  });
  const stopStallCheck = closeStalledWrites(
    server,
    options.writeStallMs ?? host.config.serve?.writeStallMs ?? DEFAULT_WRITE_STALL_MS,
    options.onWriteStall,
  );
  await new Promise<void>((resolve, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? 0, hostname, () => resolve());
  }).catch((error: unknown) => {
    stopStallCheck();
    dashboard?.close();
    gate.close();
    throw error;
  });
  const address = server.address() as AddressInfo;
  const kept =
    options.audit === false
      ? undefined
      : serveAudit(host, { name: httpAuditName(address.port), secrets: () => gate.secrets() });
  audit = kept?.trail;
  stopAudit = kept?.stop;
  originAllowed = origins.forPort(address.port);
  ownOrigins = origins.origins(address.port).join(', ');
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closed: Promise<void> | undefined;
  const origin = `http://${shownHost}:${address.port}`;
  return {
    url: `${origin}/mcp`,
    ...(gate.token === undefined ? {} : { token: gate.token }),
    auth: gate.summary,
    ...(dashboard === undefined ? {} : { dashboardUrl: `${origin}/?token=${dashboard.token}` }),
    port: address.port,
    get sessions() {
      return sessions.size;
    },
    flushAudit: () => audit?.flush(),
    close() {
      closed ??= (async () => {
        closing = true;
        dashboard?.close();
        sessions.endAll('closed');
        await modern.close();
        stopAudit?.();
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await stopped;
        stopStallCheck();
        gate.close();
      })();
      return closed;
    },
  };
}
