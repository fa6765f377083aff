import type { IncomingMessage } from 'node:http';

/** What reading one request body came to. */
export type BodyOutcome =
  | { readonly kind: 'json'; readonly value: unknown }
  /** Over the limit: by its `Content-Length`, or once more than the limit arrived (chunked). */
  | { readonly kind: 'too-large' }
  | { readonly kind: 'not-json'; readonly message: string }
  /** The client went away before the body ended. */
  | { readonly kind: 'aborted' };

const TOO_LARGE: BodyOutcome = { kind: 'too-large' };
const ABORTED: BodyOutcome = { kind: 'aborted' };

/**
 * Reads a JSON request body of at most `limit` bytes. A declared `Content-Length` over the limit
 * is refused before a byte is read; a body without one (chunked) is refused as soon as more than
 * the limit has arrived. Either way the rest of the body is read and dropped rather than left in
 * the socket, so the answer (sent with `Connection: close`, which ends the socket once it is
 * written) reaches the client instead of a reset: nothing is kept, and reading stops with the
 * socket.
 */
export function readJsonBody(req: IncomingMessage, limit: number): Promise<BodyOutcome> {
  const declared = Number(req.headers['content-length']);
  if (declared > limit) {
    req.resume();
    return Promise.resolve(TOO_LARGE);
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (outcome: BodyOutcome) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onAbort);
      req.off('close', onAbort);
      resolve(outcome);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      chunks.length = 0;
      // Still flowing with no 'data' listener: the rest is dropped as it arrives.
      stop(TOO_LARGE);
    };
    const onEnd = () => {
      const text = Buffer.concat(chunks, size).toString('utf8');
      try {
        stop({ kind: 'json', value: JSON.parse(text) });
      } catch (error) {
        const message = text.trim() === '' ? 'the request body is empty' : (error as Error).message;
        stop({ kind: 'not-json', message });
      }
    };
    const onAbort = () => stop(ABORTED);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onAbort);
    req.on('close', onAbort);
  });
}
