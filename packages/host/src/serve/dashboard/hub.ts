import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DashboardEvent, DashboardEventBody } from './types.js';

export const DEFAULT_HISTORY = 500;
export const DEFAULT_CLIENT_BUFFER = 1024 * 1024;
export const DEFAULT_PING_MS = 15_000;
/** A person has a tab or two open; more is a leak (tabs forgotten, a script), each holding a socket. */
export const DEFAULT_MAX_STREAMS = 8;

interface Entry {
  readonly seq: number;
  /** The SSE frame, written once and sent to every client as is. */
  readonly frame: string;
}

export interface EventHubOptions {
  readonly historySize?: number;
  readonly maxClientBufferBytes?: number;
  readonly pingMs?: number;
  readonly maxStreams?: number;
}

/**
 * The dashboard's event stream: numbers each event, keeps the last `historySize` frames (a ring:
 * memory is bounded whatever happens), and writes each to every connected page. A page that reads
 * too slowly (more than `maxClientBufferBytes` waiting in its socket) is told so and dropped, not
 * buffered for without bound; its `EventSource` reconnects with `Last-Event-ID` and resumes.
 * At most `maxStreams` streams are open: a new one drops the oldest (told not to reconnect), since
 * the page a person just opened is the one they look at.
 */
export class EventHub {
  readonly #history: (Entry | undefined)[];
  #next = 0;
  #seq = 0;
  readonly #clients = new Set<ServerResponse>();
  readonly #maxBuffer: number;
  readonly #pingMs: number;
  readonly #maxStreams: number;
  #ping: NodeJS.Timeout | undefined;

  constructor(options: EventHubOptions = {}) {
    this.#history = new Array(options.historySize ?? DEFAULT_HISTORY);
    this.#maxBuffer = options.maxClientBufferBytes ?? DEFAULT_CLIENT_BUFFER;
    this.#pingMs = options.pingMs ?? DEFAULT_PING_MS;
    this.#maxStreams = options.maxStreams ?? DEFAULT_MAX_STREAMS;
  }

  /** True while some page listens: calls are recorded only then (they cost nothing otherwise). */
  get watching(): boolean {
    return this.#clients.size > 0;
  }

  /** Pages connected now. */
  get clients(): number {
    return this.#clients.size;
  }

  /** The sequence number of the last event (0 before the first). */
  get seq(): number {
    return this.#seq;
  }

  /** Numbers, stamps, keeps and sends one event. */
  publish(body: DashboardEventBody): DashboardEvent {
    this.#seq += 1;
    const event = { seq: this.#seq, at: Date.now(), ...body } as DashboardEvent;
    const entry: Entry = { seq: event.seq, frame: `id: ${event.seq}\ndata: ${JSON.stringify(event)}\n\n` };
    this.#history[this.#next] = entry;
    this.#next = (this.#next + 1) % this.#history.length;
    for (const res of this.#clients) this.#write(res, entry.frame);
    return event;
  }

  /** Events kept now, oldest first. */
  history(): DashboardEvent[] {
    return this.#entries().map((entry) => JSON.parse(entry.frame.slice(entry.frame.indexOf('data: ') + 6)));
  }

  #entries(): Entry[] {
    const n = this.#history.length;
    const out: Entry[] = [];
    for (let i = 0; i < n; i++) {
      const entry = this.#history[(this.#next + i) % n];
      if (entry !== undefined) out.push(entry);
    }
    return out;
  }

  /**
   * Opens a stream on `res`: the kept events after `Last-Event-ID` (all of them without it), then
   * every event as it happens, and a `: ping` comment every `pingMs`.
   */
  attach(req: IncomingMessage, res: ServerResponse, headers: Record<string, string>): void {
    const header = req.headers['last-event-id'];
    const last = typeof header === 'string' && /^\d+$/.test(header.trim()) ? Number(header.trim()) : 0;
    res.writeHead(200, {
      ...headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    res.socket?.setNoDelay(true);
    // A page resuming after an id older than the history (or from before a restart) is told what it missed.
    const entries = this.#entries();
    const oldest = entries[0]?.seq;
    if (last > 0 && oldest !== undefined && last < oldest - 1) {
      res.write(`: events ${last + 1} to ${oldest - 1} are no longer kept\n\n`);
    }
    res.write(': connected\n\n');
    for (const entry of entries) if (entry.seq > last) res.write(entry.frame);
    // A Set keeps insertion order: the first client is the oldest.
    for (const oldest of this.#clients) {
      if (this.#clients.size < this.#maxStreams) break;
      const plural = this.#maxStreams === 1 ? 'page is' : 'pages are';
      this.#drop(oldest, {
        reason: `more than ${this.#maxStreams} ${plural} streaming events (the most allowed); this one, the oldest, was closed for a newer one. Reload the page to take its place again`,
        reconnect: false,
      });
    }
    this.#clients.add(res);
    res.once('close', () => this.#remove(res));
    this.#ping ??= setInterval(() => {
      for (const client of this.#clients) this.#write(client, ': ping\n\n');
    }, this.#pingMs).unref();
  }

  #write(res: ServerResponse, frame: string): void {
    if (res.writableLength > this.#maxBuffer) {
      // Dropped, saying why, rather than holding an unbounded backlog for a page that does not read.
      this.#drop(res, {
        reason: `the page read too slowly: over ${this.#maxBuffer} bytes were waiting; reconnect with Last-Event-ID to resume`,
        reconnect: true,
      });
      return;
    }
    res.write(frame);
  }

  /** Ends a stream with a `dropped` event; `reconnect: false` asks the page to stay away. */
  #drop(res: ServerResponse, why: { readonly reason: string; readonly reconnect: boolean }): void {
    this.#clients.delete(res);
    res.end(`event: dropped\ndata: ${JSON.stringify(why)}\n\n`);
    this.#stopPingIfIdle();
  }

  #remove(res: ServerResponse): void {
    this.#clients.delete(res);
    this.#stopPingIfIdle();
  }

  #stopPingIfIdle(): void {
    if (this.#clients.size > 0 || this.#ping === undefined) return;
    clearInterval(this.#ping);
    this.#ping = undefined;
  }

  /** Ends every stream. */
  close(): void {
    for (const res of this.#clients) res.end();
    this.#clients.clear();
    this.#stopPingIfIdle();
  }
}
