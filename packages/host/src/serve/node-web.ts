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
 * Writes `response` to `res`: status and headers at once (an event stream must reach the client
 * before its first event), then each chunk of the body as it comes. When the client goes away
 * the body is cancelled, so the SDK stops writing to it.
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
  if (headers['content-type']?.startsWith('text/event-stream') === true) res.flushHeaders();
  const reader = body.getReader();
  const cancel = () => void reader.cancel().catch(() => {});
  res.once('close', cancel);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (res.destroyed) break;
      res.write(value);
    }
  } catch {
    // The stream failed or was cancelled because the client left: nothing more to write.
  } finally {
    res.off('close', cancel);
    if (!res.destroyed) res.end();
  }
}
