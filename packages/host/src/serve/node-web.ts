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
 * How long an event stream's status and headers may wait for its first event, so that both leave
 * in one write. A tool call's answer usually comes well within it; a stream that stays silent
 * longer (a slow call, a GET listen stream) gets its headers then, as soon as any stream did before.
 */
const HEADERS_WAIT_MS = 20;

/**
 * Writes `response` to `res`: status and headers, then each chunk of the body as it comes. An event
 * stream's headers go with its first event, or after `HEADERS_WAIT_MS` if none came by then (a
 * client must see the stream open before a late first event). Node holds a chunked write until
 * the next tick, so a chunk and the end of the body right after it (an answer, then its stream
 * closing) leave in one write with the headers: one syscall a response, where flushing the
 * headers first made it two. When the client goes away the body is cancelled, so the SDK stops
 * writing to it.
 */
export async function writeWebResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, key) => {
    headers[key] = value;
  });
  res.writeHead(response.status, headers);
  const body = response.body;
  if (body === null) {
    res.end();
    return;
  }
  const headersLater =
    headers['content-type']?.startsWith('text/event-stream') === true
      ? // Cleared by the first chunk. (Not `headersSent`: it is true from `writeHead` on.)
        setTimeout(() => {
          if (!res.destroyed) res.flushHeaders();
        }, HEADERS_WAIT_MS)
      : undefined;
  const reader = body.getReader();
  const cancel = () => void reader.cancel().catch(() => {});
  res.once('close', cancel);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (res.destroyed) break;
      clearTimeout(headersLater);
      // Node holds a chunked write until the next tick: an `end` in these microtasks joins it.
      res.write(value);
    }
  } catch {
    // The stream failed or was cancelled because the client left: nothing more to write.
  } finally {
    clearTimeout(headersLater);
    res.off('close', cancel);
    if (!res.destroyed) res.end();
  }
}
