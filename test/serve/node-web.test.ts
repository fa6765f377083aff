import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  acceptsJson,
  type HeadersWait,
  WRITE_PIECE_BYTES,
  writeWebResponse,
} from '../../packages/host/src/serve/node-web.js';

type Writes = { count: number };

/** Counts the writes `res`'s socket hands to the kernel (each `_write` or `_writev` is one). */
function countWrites(res: ServerResponse): Writes {
  const writes = { count: 0 };
  const socket = res.socket as unknown as {
    _write: (...args: unknown[]) => unknown;
    _writev: (...args: unknown[]) => unknown;
  };
  const write = socket._write.bind(socket);
  const writev = socket._writev.bind(socket);
  socket._write = (...args) => {
    writes.count += 1;
    return write(...args);
  };
  socket._writev = (...args) => {
    writes.count += 1;
    return writev(...args);
  };
  return writes;
}

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** A server answering every request with `respond()`, written by `writeWebResponse`. */
async function serve(
  respond: () => Response,
  seen: (writes: Writes) => void = () => {},
  wait?: HeadersWait,
): Promise<string> {
  const server = createServer((_req, res) => {
    seen(countWrites(res));
    void writeWebResponse(res, respond(), wait);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  close = () => new Promise((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

const sse = { 'content-type': 'text/event-stream' };

/**
 * An event stream that sends `texts` (a chunk each) a microtask after it starts and ends at once,
 * as the SDK's transport does when a call's answer is ready (each event written, then the stream
 * closed).
 */
function answeringStream(texts: string | string[], headers: Record<string, string> = {}): Response {
  return new Response(
    new ReadableStream({
      start(controller) {
        queueMicrotask(() => {
          for (const text of typeof texts === 'string' ? [texts] : texts) {
            controller.enqueue(new TextEncoder().encode(text));
          }
          controller.close();
        });
      },
    }),
    { headers: { ...sse, ...headers } },
  );
}

/**
 * A server answering with an event stream the test writes to (through `controller`, once the
 * request has come), starting with `first` when given.
 */
async function serveStream(first?: string, wait?: HeadersWait) {
  let started!: ReadableStreamDefaultController<Uint8Array>;
  let requestCame!: () => void;
  const requested = new Promise<void>((resolve) => {
    requestCame = resolve;
  });
  let streamCancelled!: () => void;
  const cancelled = new Promise<void>((resolve) => {
    streamCancelled = resolve;
  });
  const url = await serve(
    () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(c) {
            started = c;
            requestCame();
            if (first !== undefined) c.enqueue(new TextEncoder().encode(first));
          },
          cancel: () => streamCancelled(),
        }),
        { headers: sse },
      ),
    undefined,
    wait,
  );
  return {
    url,
    /** Resolves once the request came (and its response is being written). */
    requested,
    /** Resolves once the writer cancelled the stream (its client left). */
    cancelled,
    controller: {
      enqueue: (chunk: Uint8Array) => started.enqueue(chunk),
      close: () => started.close(),
    },
  };
}

/** A POST as an MCP client sends it: the client takes JSON and event streams (unless `accept` says). */
function post(url: string, accept = 'application/json, text/event-stream', signal?: AbortSignal) {
  return fetch(url, {
    method: 'POST',
    body: '{}',
    headers: { accept, 'content-type': 'application/json' },
    signal,
  });
}

describe('acceptsJson: whether an Accept header takes application/json', () => {
  it('takes the type, its ranges and no header at all; refuses other types, and q=0 on the most specific range', () => {
    expect(acceptsJson(undefined)).toBe(true);
    expect(acceptsJson('application/json, text/event-stream')).toBe(true);
    expect(acceptsJson('text/event-stream, Application/JSON;charset=utf-8')).toBe(true);
    expect(acceptsJson('text/event-stream, application/*')).toBe(true);
    expect(acceptsJson('*/*')).toBe(true);
    expect(acceptsJson('application/json;q=0.5')).toBe(true);
    expect(acceptsJson('text/event-stream')).toBe(false);
    expect(acceptsJson('application/jsonl, text/event-stream')).toBe(false);
    expect(acceptsJson('text/event-stream, application/json;q=0')).toBe(false);
    expect(acceptsJson('text/event-stream, application/json; Q = 0.0')).toBe(false);
    // The most specific range that covers it decides (RFC 9110 12.5.1), whatever their order.
    expect(acceptsJson('application/json;q=0, */*')).toBe(false);
    expect(acceptsJson('*/*, application/*;q=0')).toBe(false);
    expect(acceptsJson('*/*;q=0, application/json')).toBe(true);
    expect(acceptsJson('application/json;q=0, application/json;q=0.3')).toBe(true);
    expect(acceptsJson('text/html;q=0, */*')).toBe(true);
    expect(acceptsJson('application/json;q=high')).toBe(true);
  });
});

describe('writeWebResponse: a Response written to a Node response', () => {
  it('sends an event stream that answers at once (its answer, then its end) as one JSON body, in one write with its headers', async () => {
    const answer = '{"result":{"content":[{"type":"text","text":"é ✓"}]},"jsonrpc":"2.0","id":1}';
    let writes: Writes | undefined;
    const url = await serve(
      () => answeringStream(`event: message\ndata: ${answer}\n\n`, { 'mcp-session-id': 's-1' }),
      (counted) => {
        writes = counted;
      },
    );
    const response = await post(url);
    expect(response.headers.get('content-type')).toBe('application/json');
    // The other headers stay as the SDK set them; the length is the body's in bytes, not characters.
    expect(response.headers.get('mcp-session-id')).toBe('s-1');
    expect(response.headers.get('content-length')).toBe(String(Buffer.byteLength(answer)));
    expect(await response.text()).toBe(answer);
    expect(writes?.count).toBe(1);
  });

  it('sends an answer larger than a write piece as JSON too, every byte, written a piece at a time', async () => {
    // Over WRITE_PIECE_BYTES, under the size above which answers stay events.
    const answer = `{"jsonrpc":"2.0","id":1,"result":{"text":"${'é'.repeat(60 * 1024)}"}}`;
    let writes: Writes | undefined;
    const url = await serve(
      () => answeringStream(`event: message\ndata: ${answer}\n\n`),
      (counted) => {
        writes = counted;
      },
    );
    const response = await post(url);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('content-length')).toBe(String(Buffer.byteLength(answer)));
    expect(await response.text()).toBe(answer);
    // 120 KiB of body: a first piece of 64 KiB, then the rest once the socket took it.
    expect(Buffer.byteLength(answer)).toBeGreaterThan(WRITE_PIECE_BYTES);
    expect(writes?.count).toBeGreaterThanOrEqual(2);
  });

  it('sends an error answer as JSON too', async () => {
    const answer = '{"jsonrpc":"2.0","id":"a","error":{"code":-32602,"message":"no such tool"}}';
    const url = await serve(() => answeringStream(`event: message\ndata: ${answer}\n\n`));
    const response = await post(url);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual(JSON.parse(answer));
  });

  it("never turns a GET's stream (a client listening) into JSON: the protocol answers it with events", async () => {
    const event = 'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n';
    const url = await serve(() => answeringStream(event));
    const response = await fetch(url, { headers: { accept: 'application/json, text/event-stream' } });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(await response.text()).toBe(event);
  });

  it('keeps the event stream for a client that does not take JSON', async () => {
    const event = 'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n';
    const url = await serve(() => answeringStream(event));
    for (const accept of ['text/event-stream', 'text/event-stream, application/json;q=0']) {
      const response = await post(url, accept);
      expect(response.headers.get('content-type'), accept).toBe('text/event-stream');
      expect(await response.text()).toBe(event);
    }
  });

  it('keeps the event stream, every byte, when what ends it is not one answer', async () => {
    const answer = 'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n';
    const lone = [
      // a notification, a request of the server's own, an event with an id (a stream that can be resumed)
      'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}\n\n',
      'event: message\ndata: {"method":"ping","jsonrpc":"2.0","id":0}\n\n',
      'event: message\nid: 7\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n',
      'data: {"jsonrpc":"2.0","id":1,"result":{}}\n\n',
    ];
    for (const event of lone) {
      const url = await serve(() => answeringStream(event));
      const response = await post(url);
      expect(response.headers.get('content-type'), event).toBe('text/event-stream');
      expect(await response.text()).toBe(event);
      await close?.();
    }
    // An answer in another framing than the SDK's (split over two chunks, CRLF line ends, no space
    // after `data:`), or larger than serve looks into: the event stream, every byte.
    const framings: string[][] = [
      ['event: message\ndata: {"jsonrpc":"2.0","id":1,"res', 'ult":{}}\n\n'],
      ['event: message\r\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\r\n\r\n'],
      ['event: message\ndata:{"jsonrpc":"2.0","id":1,"result":{}}\n\n'],
      [`event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{"text":"${'x'.repeat(256 * 1024)}"}}\n\n`],
    ];
    for (const chunks of framings) {
      const url = await serve(() => answeringStream(chunks));
      const response = await post(url);
      expect(response.headers.get('content-type'), chunks.join('').slice(0, 60)).toBe('text/event-stream');
      expect(await response.text()).toBe(chunks.join(''));
      await close?.();
    }
    // Progress first, then the answer: both, in order, as events.
    const progress =
      'event: message\ndata: {"method":"notifications/progress","params":{"progressToken":1,"progress":1},"jsonrpc":"2.0"}\n\n';
    const url = await serve(() => answeringStream([progress, answer]));
    const response = await post(url);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(await response.text()).toBe(progress + answer);
  });

  it('keeps the event stream when it goes on after an answer', async () => {
    const first = 'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n';
    const { url, controller } = await serveStream(first);
    // The headers come once the stream did not end with its first event.
    const response = await post(url);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const second = 'event: message\ndata: {"jsonrpc":"2.0","id":2,"result":{}}\n\n';
    controller.enqueue(new TextEncoder().encode(second));
    controller.close();
    expect(await response.text()).toBe(first + second);
  });

  it('opens a silent event stream after its wait (a GET briefly, a POST after its own), and a late answer stays an event', async () => {
    for (const method of ['GET', 'POST']) {
      const { url, controller } = await serveStream(undefined, { getMs: 20, postMs: 30 });
      // Resolves on the headers alone: nothing is sent on the stream until they have gone.
      const response = await (method === 'GET' ? fetch(url) : post(url));
      expect(response.status, method).toBe(200);
      expect(response.headers.get('content-type'), method).toBe('text/event-stream');
      // A late answer that ends the stream goes as an event: the headers said so already.
      const late = 'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n';
      controller.enqueue(new TextEncoder().encode(late));
      controller.close();
      expect(await response.text(), method).toBe(late);
      await close?.();
    }
  });

  it("holds a POST's headers for its answer, however late: a slow call's answer goes as JSON too", async () => {
    const { url, requested, controller } = await serveStream();
    const answered = post(url);
    await requested;
    // Longer than a GET's stream waits for its first event (20 ms): that timer, armed before this
    // one, would have sent the headers by now.
    await new Promise((resolve) => setTimeout(resolve, 60));
    const answer = '{"jsonrpc":"2.0","id":1,"result":{}}';
    controller.enqueue(new TextEncoder().encode(`event: message\ndata: ${answer}\n\n`));
    controller.close();
    const response = await answered;
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.text()).toBe(answer);
  });

  it('keeps the event stream, every byte, when it ends a turn after its answer', async () => {
    const event = 'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n';
    const url = await serve(
      () =>
        new Response(
          new ReadableStream({
            start(controller) {
              controller.enqueue(new TextEncoder().encode(event));
              setTimeout(() => controller.close(), 0);
            },
          }),
          { headers: sse },
        ),
    );
    const response = await post(url);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(await response.text()).toBe(event);
  });

  it('cancels the stream when a POST client leaves before any event (its headers not sent yet)', async () => {
    const { url, requested, cancelled } = await serveStream();
    const leave = new AbortController();
    const pending = post(url, undefined, leave.signal).catch(() => undefined);
    await requested;
    leave.abort();
    await pending;
    // Never settles (the test times out) if the stream is not cancelled.
    await cancelled;
  });

  it('writes each chunk of a longer stream as it comes, and a plain JSON body whole', async () => {
    const { url, controller } = await serveStream('data: 1\n\n');
    const response = await fetch(url);
    const reader = response.body?.getReader();
    if (reader === undefined) throw new Error('no body');
    // The first event reaches the client while the stream is still open.
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: 1\n\n');
    controller.enqueue(new TextEncoder().encode('data: 2\n\n'));
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: 2\n\n');
    controller.close();
    expect((await reader.read()).done).toBe(true);
    await close?.();

    const json = await serve(() => Response.json({ ok: true }, { status: 202 }));
    const answer = await fetch(json);
    expect(answer.status).toBe(202);
    expect(await answer.json()).toEqual({ ok: true });
  });
});
