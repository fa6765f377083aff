import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { writeWebResponse } from '../../packages/host/src/serve/node-web.js';

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
async function serve(respond: () => Response, seen: (writes: Writes) => void = () => {}): Promise<string> {
  const server = createServer((_req, res) => {
    seen(countWrites(res));
    void writeWebResponse(res, respond());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  close = () => new Promise((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

const sse = { 'content-type': 'text/event-stream' };

/**
 * A server answering with an event stream the test writes to (through `controller`, once the
 * request has come), starting with `first` when given.
 */
async function serveStream(first?: string) {
  let started!: ReadableStreamDefaultController<Uint8Array>;
  const url = await serve(
    () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(c) {
            started = c;
            if (first !== undefined) c.enqueue(new TextEncoder().encode(first));
          },
        }),
        { headers: sse },
      ),
  );
  return {
    url,
    controller: {
      enqueue: (chunk: Uint8Array) => started.enqueue(chunk),
      close: () => started.close(),
    },
  };
}

describe('writeWebResponse: a Response written to a Node response', () => {
  it('sends an event stream that answers at once (event, then end) in one write with its headers', async () => {
    const event = 'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n';
    let writes: Writes | undefined;
    const url = await serve(
      () =>
        new Response(
          new ReadableStream({
            start(controller) {
              // As the SDK does when the answer is ready: the event, and the stream closed with it.
              queueMicrotask(() => {
                controller.enqueue(new TextEncoder().encode(event));
                controller.close();
              });
            },
          }),
          { headers: sse },
        ),
      (counted) => {
        writes = counted;
      },
    );
    const response = await fetch(url);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(await response.text()).toBe(event);
    expect(writes?.count).toBe(1);
  });

  it('opens a silent event stream (headers sent) before its first event', async () => {
    const { url, controller } = await serveStream();
    // Resolves on the headers alone: nothing is sent on the stream until it has.
    const response = await fetch(url);
    expect(response.status).toBe(200);
    controller.enqueue(new TextEncoder().encode('data: late\n\n'));
    controller.close();
    expect(await response.text()).toBe('data: late\n\n');
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
