import type { ServerResponse } from 'node:http';

/** Why an MCP session served over HTTP ended. */
export type McpSessionCloseReason =
  /** The HTTP server closed. */
  | 'closed'
  /** The client ended it (HTTP DELETE with its id). */
  | 'deleted'
  /**
   * A new client needed its place at the cap: it was the least recently used idle session, or,
   * with none idle, the least recently used one that only held its GET stream.
   */
  | 'evicted'
  /** No request and no open stream for the idle time. */
  | 'expired'
  /** Its initialize did not succeed (refused, answered with an error, or the client left mid-way). */
  | 'failed';

/** One ended session, as `onSessionClose` reports it. */
export interface McpSessionClose {
  readonly id: string;
  readonly reason: McpSessionCloseReason;
}

/** What the table needs of a session's MCP side: a way to end it. */
export interface SessionLink {
  /** Stops listening to the host (its `change` listener). */
  readonly dispose: () => void;
  /** Closes the transport and every stream it holds; the MCP server is dropped with it. */
  readonly close: () => void;
}

/** One session of the table. */
export interface HttpSession<L extends SessionLink = SessionLink> {
  readonly id: string;
  readonly link: L;
  /** Requests of the session whose response is still open; a GET stream counts until it closes. */
  open: number;
  /** Open GET streams: server notifications not tied to a request can only travel there. */
  streams: number;
  /** A list_changed that found no open stream, sent when one opens. */
  pending: (() => void) | undefined;
  ended: boolean;
  /** Created on the first idle period, then re-armed with `refresh()`: no allocation per request. */
  timer: NodeJS.Timeout | undefined;
  /** Bound once per session, so tracking a request allocates nothing. */
  readonly settle: () => void;
  readonly streamClosed: () => void;
}

export interface SessionTableOptions {
  /** Idle time of a new session, ms (read when its timer is first armed). */
  readonly idleMs: () => number;
  readonly onClose?: ((close: McpSessionClose) => void) | undefined;
}

/**
 * The open MCP sessions of one HTTP server, least recently used first. A session is busy while one
 * of its requests (or GET streams) is open and idle otherwise; after `idleMs` of idleness it
 * expires. Ending a session, for any reason, removes it, stops its host listener and closes its
 * transport at once.
 */
export class SessionTable<L extends SessionLink = SessionLink> {
  readonly #sessions = new Map<string, HttpSession<L>>();
  readonly #options: SessionTableOptions;

  constructor(options: SessionTableOptions) {
    this.#options = options;
  }

  get size(): number {
    return this.#sessions.size;
  }

  get(id: string): HttpSession<L> | undefined {
    return this.#sessions.get(id);
  }

  /** Adds a session whose initialize request is in progress (so it is busy until `res` closes). */
  add(id: string, link: L, res: ServerResponse): HttpSession<L> {
    const session: HttpSession<L> = {
      id,
      link,
      open: 0,
      streams: 0,
      pending: undefined,
      ended: false,
      timer: undefined,
      settle: () => this.#settle(session),
      streamClosed: () => {
        session.streams -= 1;
      },
    };
    this.#sessions.set(id, session);
    this.begin(session, res);
    return session;
  }

  /** A request of the session starts: the session is busy until `res` closes, and most recently used. */
  begin(session: HttpSession<L>, res: ServerResponse): void {
    session.open += 1;
    this.#sessions.delete(session.id);
    this.#sessions.set(session.id, session);
    res.once('close', session.settle);
  }

  #settle(session: HttpSession<L>): void {
    session.open -= 1;
    if (session.open > 0 || session.ended) return;
    if (session.timer === undefined) {
      session.timer = setTimeout(() => this.#expire(session), this.#options.idleMs());
      session.timer.unref();
    } else {
      session.timer.refresh();
    }
  }

  #expire(session: HttpSession<L>): void {
    // Busy again since the timer was armed: the next idle period re-arms it.
    if (session.open === 0) this.end(session, 'expired');
  }

  /**
   * Makes room: ends the least recently used idle session, or else the least recently used one
   * whose only open request is its GET stream. A stream keeps a session from expiring, but it is
   * only where notifications go, and any local process can open sessions and hold their streams
   * for nothing; a client whose session went this way gets 404 and initializes again. A session
   * with a request running is never ended for room. False when every session has one.
   */
  evict(): boolean {
    let listening: HttpSession<L> | undefined;
    for (const session of this.#sessions.values()) {
      if (session.open === 0) {
        this.end(session, 'evicted');
        return true;
      }
      if (listening === undefined && session.open === session.streams) listening = session;
    }
    if (listening === undefined) return false;
    this.end(listening, 'evicted');
    return true;
  }

  /** Ends a session now; a second call is a no-op. */
  end(session: HttpSession<L>, reason: McpSessionCloseReason): void {
    if (session.ended) return;
    session.ended = true;
    session.pending = undefined;
    if (session.timer !== undefined) clearTimeout(session.timer);
    if (this.#sessions.get(session.id) === session) this.#sessions.delete(session.id);
    session.link.dispose();
    session.link.close();
    try {
      this.#options.onClose?.({ id: session.id, reason });
    } catch {
      // An observer's fault must not escape into the socket event that ended the session.
    }
  }

  /** Ends every session. */
  endAll(reason: McpSessionCloseReason): void {
    for (const session of [...this.#sessions.values()]) this.end(session, reason);
  }
}
