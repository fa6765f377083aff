import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Node's `http` request and response as the web-standard `Request` and `Response` the SDK's HTTP
 * transports take. The body is read (and size-checked) by `http-body.ts` before this, so the
 * `Request` carries none: the transports get it parsed.
 */

/**
 * A `Request` for `req` without a body. Its signal aborts when the client goes away before the
 * response has ended, which ends the SSE stream the SDK was writing for it.
 */
export function toWebRequest(req: IncomingMessage, res: ServerResponse): Request {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, {
    method: req.method ?? 'GET',
    headers,
    signal: controller.signal,
  });
}

/**
 * How long the status and headers of an event stream may wait for its first event, so that both
 * leave in one write (and a POST's answer can go as JSON); a stream silent longer gets its headers
 * then. A GET's listen stream: briefly, its client must see it open. A POST's: its client waits for
 * the answer, not for the stream, and a slow call's answer goes as JSON too (at 5,000 calls in
 * flight, queued in the server, most answers come late); but no longer than 10 s, so that nothing
 * between the client and serve (a proxy's timeout for a response's headers) sees a request silent
 * longer, whatever the SDK's keep-alive (15 s, which would open the stream too) is set to.
 */
export interface HeadersWait {
  readonly getMs: number;
  readonly postMs: number;
}
const HEADERS_WAIT: HeadersWait = { getMs: 20, postMs: 10_000 };

/**
 * The largest event an answer is looked for in (bytes). Finding out that an event is an answer
 * parses its JSON: above this, serve does not build a large result's objects just to read two of
 * its keys (≈ 2 ms a MB), and the answer stays an event stream.
 */
const MAX_ANSWER_BYTES = 256 * 1024;

/**
 * The largest piece a chunk is handed to the socket in (bytes). A socket counts a write as done
 * only when the kernel has taken all of it, and writes queued together go as one: a large chunk
 * is written a piece at a time, the next when the socket has taken the last, so that a large
 * result sent to a slow client shows progress as it goes (which tells a slow client from a
 * stalled one, `stalled-writes.ts`), and waits in the stream, not in the socket's queue.
 */
export const WRITE_PIECE_BYTES = 64 * 1024;

/** Resolves when `res` can take more (`drain`) or never will (`close`). */
function writable(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * Writes `chunk` to `res`; one over `WRITE_PIECE_BYTES` a piece at a time, each once the socket
 * has taken the one before. A promise when the caller must wait before its next write (the socket
 * is full), else undefined: a call's small answer never waits a turn here.
 */
function writeChunk(res: ServerResponse, chunk: Uint8Array): Promise<void> | undefined {
  if (chunk.byteLength > WRITE_PIECE_BYTES) return writePieces(res, chunk);
  return res.write(chunk) || res.destroyed ? undefined : writable(res);
}

async function writePieces(res: ServerResponse, chunk: Uint8Array): Promise<void> {
  for (let at = 0; at < chunk.byteLength && !res.destroyed; at += WRITE_PIECE_BYTES) {
    if (!res.write(chunk.subarray(at, at + WRITE_PIECE_BYTES)) && !res.destroyed) await writable(res);
  }
}

/** How the SDK writes one message as an event (no event store, so no `id:` line). */
const EVENT_HEAD = 'event: message\ndata: ';
const EVENT_TAIL = '\n\n';

/** The headers of a `Response`, as Node's `writeHead` takes them. */
function headersOf(response: Response): Record<string, string> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, key) => {
    headers[key] = value;
  });
  return headers;
}

/** How specific an `Accept` range is about `application/json`: -1 when it does not cover it. */
function jsonSpecificity(media: string): number {
  if (media === 'application/json') return 2;
  if (media === 'application/*') return 1;
  return media === '*/*' ? 0 : -1;
}

/**
 * Whether an `Accept` header takes `application/json` (as every MCP client's POST must): the most
 * specific range that covers it does not give it `q=0` ("not acceptable"; RFC 9110 12.5.1: a more
 * specific range overrides a broader one, so `application/json;q=0` refuses it beside any wildcard).
 * No header: any type will do.
 */
export function acceptsJson(accept: string | undefined): boolean {
  if (accept === undefined) return true;
  let specificity = -1;
  let quality = 0;
  for (const range of accept.split(',')) {
    const [type = '', ...params] = range.split(';');
    const covers = jsonSpecificity(type.trim().toLowerCase());
    if (covers < 0 || covers < specificity) continue;
    let q = 1;
    for (const param of params) {
      const [name = '', value = ''] = param.split('=');
      const weight = Number(value.trim());
      // A weight that is no number is ignored, as if absent.
      if (name.trim().toLowerCase() === 'q' && Number.isFinite(weight)) q = weight;
    }
    // Two ranges as specific as each other: the one that takes it more.
    quality = covers > specificity ? q : Math.max(quality, q);
    specificity = covers;
  }
  return specificity >= 0 && quality > 0;
}

/**
 * The JSON-RPC bytes of `chunk` (a view into it) when it is one event holding a response (an id
 * with a `result` or an `error`, which no notification or request carries), else undefined.
 */
function answerIn(chunk: Uint8Array): Uint8Array | undefined {
  if (chunk.byteLength > MAX_ANSWER_BYTES) return undefined;
  const text = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('utf8');
  if (!text.startsWith(EVENT_HEAD) || !text.endsWith(EVENT_TAIL)) return undefined;
  const data = text.slice(EVENT_HEAD.length, -EVENT_TAIL.length);
  // One `data:` line: the SDK writes JSON.stringify's text, which has no raw line break.
  if (data.includes('\n')) return undefined;
  let message: unknown;
  try {
    message = JSON.parse(data);
  } catch {
    return undefined;
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return undefined;
  const fields = message as Record<string, unknown>;
  if (!('id' in fields && ('result' in fields || 'error' in fields))) return undefined;
  // The head and tail are ASCII: as many bytes as characters, so the JSON is the bytes between.
  return chunk.subarray(EVENT_HEAD.length, chunk.byteLength - EVENT_TAIL.length);
}

/** `pending`'s result when it settles within this turn's microtasks, else undefined (it goes on). */
function settledNow<T>(pending: Promise<T>): Promise<T | undefined> {
  return Promise.race([pending, new Promise<undefined>((resolve) => setImmediate(resolve, undefined))]);
}

/**
 * Writes `response` to `res`: status and headers, then each chunk of the body as it comes.
 *
 * An event stream whose first event is the answer to the request, with the stream ended right
 * after it (a call that sent no progress, log line or request of its own first, as most do), goes
 * as that one JSON-RPC message, `application/json`: what the protocol lets a server answer a POST
 * with, and what every client must take. Clients parse it with far less work than an event stream
 * (the SDK's client: its stream of decoders and an SSE parser per response): the SDK's v1 client
 * took 276-279 µs of CPU a call against 358-374 (three interleaved runs of a scratch A/B, 64 calls
 * in flight). A stream that sends anything first, or goes on after its answer, stays an event
 * stream, every byte as the SDK wrote it.
 *
 * Only a POST's stream is looked at: a GET is a client listening, which the protocol answers with
 * an event stream only. An event larger than `MAX_ANSWER_BYTES` stays an event too.
 *
 * An event stream's headers go with its first event (the answer or the first thing before it), or
 * after `wait` at the latest (`HEADERS_WAIT`). Node holds a chunked write until the next tick, so a
 * chunk and the end of the body right after it leave in one write with the headers: one syscall a
 * response. When the client goes away the body is cancelled, so the SDK stops writing to it.
 */
export async function writeWebResponse(
  res: ServerResponse,
  response: Response,
  wait: HeadersWait = HEADERS_WAIT,
): Promise<void> {
  const headers = headersOf(response);
  const body = response.body;
  if (body === null) {
    res.writeHead(response.status, headers);
    res.end();
    return;
  }
  const events = headers['content-type']?.startsWith('text/event-stream') === true;
  let opened = false;
  const open = () => {
    if (opened) return;
    opened = true;
    res.writeHead(response.status, headers);
  };
  if (!events) open();
  const request = res.req as IncomingMessage | undefined;
  const post = request?.method === 'POST';
  const headersLater = events
    ? setTimeout(
        () => {
          if (res.destroyed) return;
          open();
          res.flushHeaders();
        },
        post ? wait.postMs : wait.getMs,
      )
    : undefined;
  const reader = body.getReader();
  const cancel = () => void reader.cancel().catch(() => {});
  res.once('close', cancel);
  try {
    let next = reader.read();
    if (events) {
      const first = await next;
      clearTimeout(headersLater);
      next = first.done ? Promise.resolve(first) : reader.read();
      const answer =
        first.done || opened || !post || !acceptsJson(request?.headers.accept)
          ? undefined
          : answerIn(first.value);
      if (answer !== undefined && (await settledNow(next))?.done === true) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = String(answer.byteLength);
        open();
        if (answer.byteLength <= WRITE_PIECE_BYTES) res.end(answer);
        else {
          await writePieces(res, answer);
          res.end();
        }
        return;
      }
      open();
      if (!first.done && !res.destroyed) await writeChunk(res, first.value);
    }
    for (;;) {
      const { done, value } = await next;
      if (done || res.destroyed) break;
      // Node holds a chunked write until the next tick: an `end` in these microtasks joins it.
      const full = writeChunk(res, value);
      if (full !== undefined) await full;
      next = reader.read();
    }
  } catch {
    // The stream failed or was cancelled because the client left: nothing more to write.
  } finally {
    clearTimeout(headersLater);
    res.off('close', cancel);
    if (!res.destroyed) {
      open();
      if (!res.writableEnded) res.end();
    }
  }
}
