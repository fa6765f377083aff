/** The dev dashboard's routes beside `/mcp`: the page, its state, the event stream, calls and approvals. */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Session } from '../../core/dispatch/session.js';
import type { CallObserver, CallOutcome } from '../../core/wrap/wrapper.js';
import type { ToolHost } from '../../host/host.js';
import { readJsonBody } from '../http-body.js';
import type { McpCallInfo, McpCallWatch } from '../server.js';
import { fold } from './fold.js';
import { EventHub } from './hub.js';
import { dashboardState, errorPlace } from './state.js';
import { defaultAssetsDir, readAsset } from './static.js';
import { createDashboardToken, TOKEN_REFUSALS } from './token.js';
import type { DashboardCallResponse, DashboardEventBody, DashboardOptions } from './types.js';

/** Every dashboard response: the page runs only its own files, and nothing sniffs types. */
export const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; img-src 'self' data: blob:; media-src 'self' data: blob:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  // The first load's address carries the token: no link the page shows may send it on.
  'referrer-policy': 'no-referrer',
} as const satisfies OutgoingHttpHeaders;

const DECISIONS: ReadonlySet<unknown> = new Set(['allow-once', 'allow-always', 'deny']);

/** How the dashboard is wired into `serveHttp`. */
export interface DashboardContext {
  readonly host: ToolHost;
  readonly options: DashboardOptions;
  /** The largest request body, bytes (serve.maxBodyBytes). */
  readonly maxBody: () => number;
  /** True when an `Origin` header is one the server accepts: scheme, host and port (the MCP endpoint's rule). */
  readonly originAllowed: (origin: string) => boolean;
}

/** The dashboard of one server; `close` stops listening to the host and ends every stream. */
export interface Dashboard {
  readonly hub: EventHub;
  /** The per-run secret every `/api/` request must carry; the page gets it from its address. */
  readonly token: string;
  /** Answers a request for any path but `/mcp`, after the Host and Origin checks. */
  handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<void>;
  /** Sends `{ error }` with the dashboard's headers. */
  refuse(res: ServerResponse, status: number, error: string, headers?: OutgoingHttpHeaders): void;
  /** Watches MCP calls: each becomes `call` events while a page listens; undefined (free) otherwise. */
  watchCall(call: McpCallInfo): McpCallWatch | undefined;
  close(): void;
}

function send(res: ServerResponse, status: number, body: unknown, headers?: OutgoingHttpHeaders): void {
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-cache',
    ...headers,
  });
  res.end(JSON.stringify(body));
}

/**
 * Watches one call for the stream: `start` now, `end` with the hooks that blocked or rewrote it.
 * Folding runs only here, so a call costs nothing when no page listens.
 */
function callWatch(
  hub: EventHub,
  source: 'mcp' | 'dashboard',
  callId: string,
  sessionId: string,
  tool: string,
  input: unknown,
  principal?: string,
): McpCallWatch {
  const who = principal === undefined ? {} : { principal };
  hub.publish({ type: 'call', phase: 'start', callId, sessionId, ...who, source, tool, input: fold(input) });
  let blockedBy: string | undefined;
  let rewroteBy: string[] | undefined;
  return {
    hook(name, verdict) {
      if (verdict === 'block') blockedBy = name;
      else rewroteBy = [...(rewroteBy ?? []), name];
    },
    end({ status, durationMs, result }: CallOutcome) {
      const hooks =
        blockedBy === undefined && rewroteBy === undefined
          ? undefined
          : {
              ...(blockedBy === undefined ? {} : { blockedBy }),
              ...(rewroteBy === undefined ? {} : { rewroteBy }),
            };
      hub.publish({
        type: 'call',
        phase: 'end',
        callId,
        sessionId,
        ...who,
        source,
        tool,
        status,
        durationMs,
        result: fold(result),
        ...(hooks === undefined ? {} : { hooks }),
      });
    },
  };
}

/** Plugins' error text, to publish a `plugin-error` when it appears or changes. */
function pluginErrors(host: ToolHost): Map<string, string> {
  const errors = new Map<string, string>();
  for (const report of host.plugins) {
    if (report.status !== 'failed' && report.status !== 'quarantined') continue;
    errors.set(report.id, report.diagnostics.join('\n'));
  }
  return errors;
}

/** `line 3, column 7` in a config error's message. */
function configPlace(message: string): { line?: number; column?: number } {
  const match = /line (\d+), column (\d+)/.exec(message);
  return match === null ? {} : { line: Number(match[1]), column: Number(match[2]) };
}

export function createDashboard(context: DashboardContext): Dashboard {
  const { host, options } = context;
  const hub = new EventHub(options);
  const token = createDashboardToken();
  const assetsDir = options.assetsDir ?? defaultAssetsDir();
  let session: Session | undefined;

  let errors = pluginErrors(host);
  const offChange = host.on('change', (change) => {
    const before = errors;
    errors = pluginErrors(host);
    for (const [plugin, message] of errors) {
      if (before.get(plugin) !== message)
        hub.publish({ type: 'plugin-error', plugin, ...errorPlace(message) });
    }
    hub.publish({
      type: 'rebuild',
      cause: change.cause,
      durationMs: change.durationMs,
      version: change.version,
      diff: { added: change.added, removed: change.removed, changed: change.changed },
    });
  });
  const offError = host.on('error', (error) => {
    if (error.kind !== 'config') {
      hub.publish({ type: 'config-error', message: `${error.kind} error: ${error.message}` });
      return;
    }
    for (const issue of error.issues) {
      const message = `${issue.path}: ${issue.message}`;
      hub.publish({ type: 'config-error', message, file: issue.file, ...configPlace(issue.message) });
    }
  });
  const offApproval = host.on('approval', (event) => {
    const { type, approval, ...rest } = event as { type: 'requested' | 'decided'; approval: object };
    hub.publish({
      type: 'approval',
      phase: type,
      approval: { ...approval, input: fold((approval as { input: unknown }).input) },
      ...rest,
    } as DashboardEventBody);
  });

  const refuse = (res: ServerResponse, status: number, error: string, headers?: OutgoingHttpHeaders) =>
    send(res, status, { error }, headers);

  /** A POST's body as JSON, after the CSRF check: the browser's Origin must be there and allowed. */
  const postBody = async (req: IncomingMessage, res: ServerResponse): Promise<unknown> => {
    const origin = req.headers.origin;
    if (origin === undefined) {
      refuse(
        res,
        403,
        'forbidden: a POST must carry an Origin header (the dashboard accepts only its own page)',
      );
      return undefined;
    }
    if (!context.originAllowed(origin)) {
      refuse(res, 403, `forbidden: Origin "${origin}" is not allowed`);
      return undefined;
    }
    const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/json') {
      req.resume();
      refuse(res, 415, `unsupported media type "${type ?? ''}": send content-type application/json`);
      return undefined;
    }
    const limit = context.maxBody();
    const body = await readJsonBody(req, limit);
    if (body.kind === 'aborted') {
      res.destroy();
      return undefined;
    }
    if (body.kind === 'too-large') {
      refuse(res, 413, `payload too large: the request body is over ${limit} bytes (serve.maxBodyBytes)`, {
        connection: 'close',
      });
      return undefined;
    }
    if (body.kind === 'not-json') {
      refuse(res, 400, `bad request: the body is not JSON: ${body.message}`);
      return undefined;
    }
    if (typeof body.value !== 'object' || body.value === null || Array.isArray(body.value)) {
      refuse(res, 400, 'bad request: the body must be a JSON object');
      return undefined;
    }
    return body.value;
  };

  const call = async (req: IncomingMessage, res: ServerResponse) => {
    const body = (await postBody(req, res)) as { tool?: unknown; input?: unknown } | undefined;
    if (body === undefined) return;
    if (typeof body.tool !== 'string' || body.tool === '') {
      return refuse(res, 400, 'bad request: "tool" must be the name of a tool');
    }
    session ??= host.session();
    const callId = `dashboard-${randomUUID()}`;
    const input = body.input ?? {};
    const watch = hub.watching
      ? callWatch(hub, 'dashboard', callId, session.id, body.tool, input)
      : undefined;
    const observer: CallObserver | undefined = watch && { hook: watch.hook?.bind(watch) };
    const outcome = await session.call(body.tool, input, callId, observer === undefined ? {} : { observer });
    watch?.end?.(outcome);
    const answer: DashboardCallResponse = {
      status: outcome.status,
      durationMs: outcome.durationMs,
      result: outcome.result,
    };
    send(res, 200, answer);
  };

  const answerApproval = async (req: IncomingMessage, res: ServerResponse, id: string) => {
    const body = (await postBody(req, res)) as { decision?: unknown; reason?: unknown } | undefined;
    if (body === undefined) return;
    if (!DECISIONS.has(body.decision)) {
      return refuse(
        res,
        400,
        `bad request: "decision" must be "allow-once", "allow-always" or "deny", not ${JSON.stringify(body.decision) ?? 'missing'}`,
      );
    }
    if (body.reason !== undefined && typeof body.reason !== 'string') {
      return refuse(res, 400, 'bad request: "reason" must be a string');
    }
    const answered = host.approvals.answer(
      id,
      {
        decision: body.decision as 'allow-once' | 'allow-always' | 'deny',
        ...(body.reason === undefined || body.reason === '' ? {} : { reason: body.reason as string }),
      },
      'dashboard',
    );
    send(res, 200, { answered });
  };

  const asset = async (res: ServerResponse, name: string) => {
    const found = await readAsset(assetsDir, name);
    if (found.kind === 'refused') return refuse(res, 400, `bad request: ${found.message}`);
    if (found.kind === 'missing') return refuse(res, 404, `not found: ${found.message}`);
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      'content-type': found.type,
      'cache-control': 'no-cache',
      'content-length': found.body.length,
    });
    res.end(found.body);
  };

  /** The API's gate: the page and its files are public (the page must load to read its token). */
  const authorized = (req: IncomingMessage, res: ServerResponse, path: string): boolean => {
    const check = token.check(req, { query: path === '/api/events' });
    if (check === 'ok') return true;
    req.resume();
    if (check === 'missing') {
      refuse(res, 401, TOKEN_REFUSALS.missing, { 'www-authenticate': 'Bearer realm="toolhost dev"' });
    } else {
      refuse(res, 403, TOKEN_REFUSALS.wrong);
    }
    return false;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, path: string) => {
    const method = req.method ?? 'GET';
    if (path.startsWith('/api/') && !authorized(req, res, path)) return;
    const only = (allowed: 'GET' | 'POST') => {
      if (method === allowed) return true;
      req.resume();
      refuse(res, 405, `method not allowed: ${method}; ${path} takes ${allowed}`, { allow: allowed });
      return false;
    };
    if (path === '/' || path === '/index.html') {
      if (only('GET')) await asset(res, 'index.html');
      return;
    }
    if (path.startsWith('/dashboard/')) {
      if (only('GET')) await asset(res, path.slice('/dashboard/'.length));
      return;
    }
    if (path === '/api/state') {
      if (only('GET')) send(res, 200, await dashboardState(host));
      return;
    }
    if (path === '/api/events') {
      if (only('GET')) hub.attach(req, res, SECURITY_HEADERS);
      return;
    }
    if (path === '/api/call') {
      if (only('POST')) await call(req, res);
      return;
    }
    if (path === '/api/approvals') {
      if (only('GET')) send(res, 200, host.approvals.pending());
      return;
    }
    const approval = /^\/api\/approvals\/([^/]+)$/.exec(path);
    if (approval !== null) {
      if (only('POST')) await answerApproval(req, res, decodeURIComponent(approval[1] as string));
      return;
    }
    req.resume();
    refuse(res, 404, `not found: ${path} (the dashboard is at /, its API under /api/, MCP at /mcp)`);
  };

  return {
    hub,
    token: token.value,
    handle,
    refuse,
    watchCall: (info) =>
      hub.watching
        ? callWatch(hub, 'mcp', info.callId, info.sessionId, info.tool, info.input, info.principal)
        : undefined,
    close() {
      offChange();
      offError();
      offApproval();
      hub.close();
    },
  };
}

/** Both watchers of one call, or the one there is. */
export function bothWatches(
  a: McpCallWatch | undefined,
  b: McpCallWatch | undefined,
): McpCallWatch | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return {
    log: (level, message, data) => {
      a.log?.(level, message, data);
      b.log?.(level, message, data);
    },
    progress: (done, total, message) => {
      a.progress?.(done, total, message);
      b.progress?.(done, total, message);
    },
    hook: (name, verdict) => {
      a.hook?.(name, verdict);
      b.hook?.(name, verdict);
    },
    end: (outcome) => {
      a.end?.(outcome);
      b.end?.(outcome);
    },
  };
}
