/** The options of `serveHttp` and the server it returns (http.ts). */
import type { HttpAuthOptions } from './auth/gate.js';
import type { DashboardOptions } from './dashboard/index.js';
import type { McpSessionClose } from './http-sessions.js';
import type { McpServeOptions } from './server.js';
import type { WriteStall } from './stalled-writes.js';

/** How `serveHttp` listens and how long its MCP sessions live. */
export interface McpHttpOptions extends McpServeOptions {
  /** Default 0 (any free port). */
  readonly port?: number;
  /** Default `127.0.0.1`: the server is for this machine unless told otherwise. */
  readonly hostname?: string;
  /** Host names accepted in the `Host` header (port ignored); default localhost names. */
  readonly allowedHosts?: readonly string[];
  /**
   * Origins accepted in an `Origin` header, compared exactly: scheme, host and port. A bare host
   * name stands for `http://NAME:<this server's port>`; a full origin (`https://tools.example`) is
   * taken as given. Default the `allowedHosts` names, so only pages served by this server.
   */
  readonly allowedOrigins?: readonly string[];
  /**
   * A connection whose client reads nothing of what the server has to send for this long is
   * closed, ms (`stalled-writes.ts`); default the config's `serve.writeStallMs`, else 60 s.
   */
  readonly writeStallMs?: number;
  /** Called for each connection closed because its client stopped reading (`writeStallMs`). */
  readonly onWriteStall?: (stall: WriteStall) => void;
  /** Largest request body, bytes; default the config's `serve.maxBodyBytes`, else 4 MiB. */
  readonly maxBodyBytes?: number;
  /**
   * A session with no request and no open stream for this long is closed, ms; its id then gets
   * 404 and the client initializes again. Default the config's `serve.sessionIdleMs`, else 30 min.
   */
  readonly sessionIdleMs?: number;
  /**
   * Most sessions open at once; default the config's `serve.maxSessions`, else 256. At the cap a
   * new client takes the place of the least recently used idle session, else of the least recently
   * used one that only holds its GET stream, and gets 503 only when every session runs a request.
   */
  readonly maxSessions?: number;
  /** Called as each session ends, with why. */
  readonly onSessionClose?: (close: McpSessionClose) => void;
  /**
   * Serves the dev dashboard at `/` (page, `/api/*`, event stream) under the same Host and Origin
   * checks; its API also wants the per-run token of `dashboardUrl`. `toolhost dev` turns it on.
   * Off by default.
   */
  readonly dashboard?: DashboardOptions;
  /**
   * Who may call (serve/auth/gate.ts): by default a bearer token of the project's
   * `.toolhost/serve-tokens.json`, made on first use; `{ allowUnauthenticated: true }` only on a
   * loopback address.
   */
  readonly auth?: HttpAuthOptions;
  /**
   * Keeps the audit trail (audit/trail.ts) in `.toolhost/audit/<machine>-<port>.jsonl`, as config
   * `audit` says; default true (config `audit.enabled: false` turns it off as well).
   */
  readonly audit?: boolean;
}

/** A running MCP streamable HTTP server, as `serveHttp` returns it. */
export interface McpHttpServer {
  readonly url: string;
  /** The project's `default` bearer token, when project tokens are on: give it to the clients. */
  readonly token?: string;
  /** How callers authenticate, in one line (for a start banner). */
  readonly auth: string;
  /**
   * With `dashboard`: the page's address with its per-run token (`http://127.0.0.1:7337/?token=…`),
   * the only way in to the dashboard's API; show it only to the person who runs the server.
   */
  readonly dashboardUrl?: string;
  readonly port: number;
  /** MCP sessions open now (including those whose initialize is in progress). */
  readonly sessions: number;
  /** Writes the audit records gathered so far now (else they are written within 50 ms). */
  flushAudit(): void;
  /** Ends every session, then stops the server. */
  close(): Promise<void>;
}
