import { request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/server';
import {
  createHost,
  type McpHttpOptions,
  type McpHttpServer,
  serveHttp,
  type ToolHost,
  type ToolhostConfigInput,
} from '@toolhost/host';
import { defineTool } from '@toolhost/plugin-sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import {
  countChangeListeners,
  INITIALIZE,
  inSession,
  MCP_HEADERS,
  openSession,
  post,
  sessionCloses,
} from './mcp-http-helpers.js';

const echo = defineTool({
  name: 'echo',
  description: 'Echoes its text',
  input: z.object({ text: z.string() }),
  execute: ({ text }) => text,
});

/** Holds each call until the test lets it go: a request in flight, as long as the test needs. */
let release: () => void = () => {};
let held: () => void = () => {};
const hold = defineTool({
  name: 'hold',
  description: 'Returns when released',
  input: z.object({}),
  execute: () =>
    new Promise<string>((resolve) => {
      release = () => resolve('released');
      held();
    }),
});

let host: ToolHost | undefined;
let served: McpHttpServer | undefined;

afterEach(async () => {
  vi.restoreAllMocks();
  await served?.close();
  await host?.close();
  served = undefined;
  host = undefined;
});

/** A host with one tool, served over HTTP; `listeners` counts the host's change listeners. */
async function start(options: McpHttpOptions = {}, config: ToolhostConfigInput = {}) {
  host = await createHost({
    pluginsDir: false,
    builtins: false,
    configFile: false,
    ...config,
    customTools: [echo, hold],
  });
  const listeners = countChangeListeners(host);
  const closes = sessionCloses();
  served = await serveHttp(host, {
    auth: { allowUnauthenticated: true },
    onSessionClose: closes.onSessionClose,
    ...options,
  });
  return { served, url: served.url, listeners, closes };
}

async function errorOf(response: Response): Promise<{ code: number; message: string }> {
  expect(response.headers.get('content-type')).toMatch(/application\/json/);
  const body = (await response.json()) as { jsonrpc: string; error: { code: number; message: string } };
  expect(body.jsonrpc).toBe('2.0');
  return body.error;
}

/** Opens the session's GET stream (server notifications); resolves once the server answered it. */
async function openStream(url: string, id: string): Promise<AbortController> {
  const controller = new AbortController();
  const response = await fetch(url, {
    headers: { accept: 'text/event-stream', 'mcp-session-id': id },
    signal: controller.signal,
  });
  expect(response.status).toBe(200);
  return controller;
}

describe('MCP HTTP sessions: idle expiry', () => {
  /**
   * For the tests that use a session after opening it: long enough that the few requests between
   * opening and using it never leave it idle that long, even on a loaded machine (300 ms left a
   * margin of one long pause: in the full suite on two CPUs, an executor spinning in last-resort
   * GCs beside this file can take that much).
   */
  const IDLE_MS = 1_000;

  it('expires an idle session: its host listener is removed and its id then gets 404 Session not found', async () => {
    const { url, listeners, closes } = await start({ sessionIdleMs: 20 });
    const id = await openSession(url);
    expect(listeners.count).toBe(1);
    expect(await closes.of(id)).toEqual({ id, reason: 'expired' });
    expect(served?.sessions).toBe(0);
    expect(listeners.count).toBe(0);
    const late = await inSession(url, id);
    expect(late.status).toBe(404);
    expect(await errorOf(late)).toMatchObject({ code: -32001, message: expect.stringMatching(/initialize/) });
  });

  it('lets a 404ed client start over with initialize, even when it still sends the stale id', async () => {
    const { url, closes } = await start({ sessionIdleMs: IDLE_MS });
    const stale = await openSession(url);
    await closes.of(stale);
    const again = await post(url, INITIALIZE, { 'mcp-session-id': stale });
    await again.text();
    expect(again.status).toBe(200);
    const fresh = again.headers.get('mcp-session-id');
    expect(fresh).not.toBeNull();
    expect(fresh).not.toBe(stale);
    expect((await inSession(url, fresh ?? '')).status).toBe(200);
  });

  it('does not expire a session while its GET stream is open, and expires it once the stream closes', async () => {
    const { url, closes } = await start({ sessionIdleMs: IDLE_MS });
    const streaming = await openSession(url);
    const stream = await openStream(url, streaming);
    // Timers of one duration fire in the order they were armed: by the time a session opened
    // after the stream expires, the streaming session has been past its idle time too.
    const later = await openSession(url);
    expect(await closes.of(later)).toEqual({ id: later, reason: 'expired' });
    expect(closes.seen.map((close) => close.id)).not.toContain(streaming);
    expect((await inSession(url, streaming)).status).toBe(200);
    stream.abort();
    expect(await closes.of(streaming)).toEqual({ id: streaming, reason: 'expired' });
  });

  it('counts a request as activity: it restarts the idle time', async () => {
    const { url, closes } = await start({ sessionIdleMs: IDLE_MS });
    const used = await openSession(url);
    const left = await openSession(url);
    // The request ends after `left` went idle, so `used` is due after it; timers of one duration
    // fire in order, so when `left` expires `used` must still be open.
    const answer = await inSession(url, used);
    expect(answer.status).toBe(200);
    await answer.text();
    expect(await closes.of(left)).toEqual({ id: left, reason: 'expired' });
    expect(closes.seen.map((close) => close.id)).not.toContain(used);
    expect(await closes.of(used)).toEqual({ id: used, reason: 'expired' });
  });
});

describe('MCP HTTP sessions: DELETE and close()', () => {
  it('frees a session at once on DELETE (the spec termination); its id then gets 404', async () => {
    const { url, listeners, closes } = await start();
    const id = await openSession(url);
    const deleted = await fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': id } });
    expect(deleted.status).toBe(200);
    expect(served?.sessions).toBe(0);
    expect(listeners.count).toBe(0);
    expect(closes.seen).toEqual([{ id, reason: 'deleted' }]);
    expect((await inSession(url, id)).status).toBe(404);
  });

  it('answers GET and DELETE with an unknown session id 404, and without one 400', async () => {
    const { url } = await start();
    const unknown = { 'mcp-session-id': '00000000-0000-0000-0000-000000000000' };
    for (const method of ['GET', 'DELETE']) {
      const withUnknown = await fetch(url, { method, headers: { accept: 'text/event-stream', ...unknown } });
      expect(withUnknown.status).toBe(404);
      expect((await errorOf(withUnknown)).code).toBe(-32001);
      const without = await fetch(url, { method, headers: { accept: 'text/event-stream' } });
      expect(without.status).toBe(400);
      expect((await errorOf(without)).message).toMatch(/mcp-session-id/);
    }
    expect((await inSession(url, unknown['mcp-session-id'])).status).toBe(404);
    const put = await fetch(url, { method: 'PUT', headers: MCP_HEADERS, body: '{}' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('POST, GET, DELETE');
  });

  it('close() ends every session, SDK clients with open streams too, and removes every listener', async () => {
    const { url, listeners, closes } = await start();
    const raw = [await openSession(url), await openSession(url)];
    const clients = [new Client({ name: 'a', version: '1' }), new Client({ name: 'b', version: '1' })];
    for (const client of clients) await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    expect(served?.sessions).toBe(4);
    expect(listeners.count).toBe(4);
    await served?.close();
    expect(served?.sessions).toBe(0);
    expect(listeners.count).toBe(0);
    expect(closes.seen.map((close) => close.reason)).toEqual(['closed', 'closed', 'closed', 'closed']);
    expect(closes.seen.map((close) => close.id)).toEqual(expect.arrayContaining(raw));
    for (const client of clients) await client.close();
  });
});

describe('MCP HTTP sessions: the cap', () => {
  it('at maxSessions, a new initialize takes the place of the least recently used idle session', async () => {
    const { url, listeners, closes } = await start({ maxSessions: 2 });
    const first = await openSession(url);
    const second = await openSession(url);
    expect((await inSession(url, first)).status).toBe(200); // `second` is now the least recently used
    const third = await openSession(url);
    expect(closes.seen).toEqual([{ id: second, reason: 'evicted' }]);
    expect(served?.sessions).toBe(2);
    expect(listeners.count).toBe(2);
    expect((await inSession(url, second)).status).toBe(404);
    expect((await inSession(url, first)).status).toBe(200);
    expect((await inSession(url, third)).status).toBe(200);
  });

  it('with none idle, a new initialize takes the place of the least recently used session that only holds its stream', async () => {
    // Any local process can open sessions and hold their GET streams for nothing; a stream is
    // only where notifications go, so it must not keep a new client out.
    const { url, closes } = await start({ maxSessions: 2 });
    const first = await openSession(url);
    const second = await openSession(url);
    const streams = await Promise.all(
      [first, second].map((id) =>
        fetch(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': id } }),
      ),
    );
    expect(streams.map((response) => response.status)).toEqual([200, 200]);
    expect((await inSession(url, first)).status).toBe(200); // `second` is now the least recently used
    const third = await openSession(url);
    expect(closes.seen).toEqual([{ id: second, reason: 'evicted' }]);
    await streams[1]?.text(); // its stream ended with it
    expect((await inSession(url, second)).status).toBe(404);
    expect((await inSession(url, first)).status).toBe(200);
    expect((await inSession(url, third)).status).toBe(200);
    await streams[0]?.body?.cancel();
  });

  it('with every session running a request, answers initialize 503 naming the cap and how to raise it (serve.maxSessions)', async () => {
    const { url, listeners } = await start({}, { serve: { maxSessions: 1 } });
    const busy = await openSession(url);
    const running = new Promise<void>((resolve) => {
      held = resolve;
    });
    const call = inSession(url, busy, 'tools/call', { name: 'hold', arguments: {} });
    await running;
    const refused = await post(url, INITIALIZE);
    expect(refused.status).toBe(503);
    const error = await errorOf(refused);
    expect(error.code).toBe(-32000);
    expect(error.message).toMatch(/maxSessions 1/);
    expect(error.message).toMatch(/raise serve\.maxSessions in toolhost\.config\.json/);
    expect(refused.headers.get('mcp-session-id')).toBeNull();
    expect(served?.sessions).toBe(1);
    expect(listeners.count).toBe(1);
    release();
    expect((await call).status).toBe(200);
  });

  it('checks its options and names the one that is wrong', async () => {
    host = await createHost({ pluginsDir: false, builtins: false, configFile: false });
    await expect(serveHttp(host, { auth: { allowUnauthenticated: true }, maxSessions: 0 })).rejects.toThrow(
      /maxSessions must be a whole number/,
    );
    await expect(
      serveHttp(host, { auth: { allowUnauthenticated: true }, sessionIdleMs: 2 ** 31 }),
    ).rejects.toThrow(/sessionIdleMs .* got 2147483648/);
    await expect(
      serveHttp(host, { auth: { allowUnauthenticated: true }, maxBodyBytes: 1.5 }),
    ).rejects.toThrow(/maxBodyBytes/);
    await expect(
      serveHttp(host, { auth: { allowUnauthenticated: true }, allowedOrigins: ['http://localhost:1/path'] }),
    ).rejects.toThrow(/allowedOrigins: "http:\/\/localhost:1\/path" is not an origin/);
  });
});

describe('MCP HTTP sessions: a failed initialize leaves nothing behind', () => {
  it('refused by the transport (Accept, Content-Type) or not an initialize at all: no session, no listener', async () => {
    const { url, listeners } = await start();
    const noStream = await post(url, INITIALIZE, { accept: 'application/json' });
    expect(noStream.status).toBe(406);
    await noStream.text();
    const notJsonType = await post(url, INITIALIZE, { 'content-type': 'text/plain' });
    expect(notJsonType.status).toBe(415);
    await notJsonType.text();
    const badVersion = await post(url, {
      ...INITIALIZE,
      params: { ...INITIALIZE.params, protocolVersion: 7 },
    });
    expect(badVersion.status).toBe(400);
    await badVersion.text();
    expect(served?.sessions).toBe(0);
    expect(listeners.count).toBe(0);
    const broken = await post(url, '{"jsonrpc": "2.0", "id": 1, "method": "initia');
    expect(broken.status).toBe(400);
    expect(await errorOf(broken)).toMatchObject({
      code: -32700,
      message: expect.stringMatching(/^parse error/),
    });
    expect(listeners.count).toBe(0);
  });

  it('answered with an error because the initialize handler threw: the session is ended', async () => {
    const { url, listeners, closes } = await start();
    vi.spyOn(
      Server.prototype as unknown as { _oninitialize(): Promise<unknown> },
      '_oninitialize',
    ).mockRejectedValueOnce(new Error('initialize handler broke'));
    const response = await post(url, INITIALIZE);
    expect(await response.text()).toMatch(/initialize handler broke/);
    const id = response.headers.get('mcp-session-id') ?? '';
    expect(await closes.of(id)).toEqual({ id, reason: 'failed' });
    expect(served?.sessions).toBe(0);
    expect(listeners.count).toBe(0);
  });

  it('when the client disconnects before the answer: the session is ended', async () => {
    const { served: server, listeners, closes } = await start();
    let entered: () => void = () => {};
    const inHandler = new Promise<void>((resolve) => {
      entered = resolve;
    });
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    vi.spyOn(
      Server.prototype as unknown as { _oninitialize(): Promise<unknown> },
      '_oninitialize',
    ).mockImplementationOnce(async () => {
      entered();
      await released;
      return { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'late', version: '1' } };
    });
    const req = request({
      host: '127.0.0.1',
      port: server.port,
      path: '/mcp',
      method: 'POST',
      headers: MCP_HEADERS,
    });
    req.on('error', () => {});
    req.end(JSON.stringify(INITIALIZE));
    await inHandler;
    expect(server.sessions).toBe(1);
    req.destroy();
    await closes.count('failed', 1);
    expect(closes.seen).toEqual([{ id: expect.any(String), reason: 'failed' }]);
    expect(server.sessions).toBe(0);
    expect(listeners.count).toBe(0);
    release();
  });
});

describe('MCP HTTP request bodies', () => {
  const LIMIT = 1024;

  /** A raw POST whose body the test writes itself; resolves with the answer and when the socket closed. */
  function rawPost(port: number, headers: Record<string, string>) {
    const req = request({
      host: '127.0.0.1',
      port,
      path: '/mcp',
      method: 'POST',
      headers: { ...MCP_HEADERS, ...headers },
    });
    const socketClosed = new Promise<void>((resolve) => req.once('close', () => resolve()));
    req.on('error', () => {});
    const answer = new Promise<{ status: number; body: string }>((resolve) =>
      req.once('response', (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      }),
    );
    return { req, answer, socketClosed };
  }

  it('answers a declared Content-Length over maxBodyBytes 413 with a JSON-RPC error, before the body is sent', async () => {
    const { served: server, listeners } = await start({ maxBodyBytes: LIMIT });
    const { req, answer, socketClosed } = rawPost(server.port, { 'content-length': String(LIMIT + 1) });
    req.flushHeaders();
    const { status, body } = await answer;
    expect(status).toBe(413);
    expect(JSON.parse(body)).toMatchObject({
      jsonrpc: '2.0',
      error: { code: -32000, message: expect.stringMatching(/over 1024 bytes \(serve\.maxBodyBytes\)/) },
    });
    await socketClosed; // never sent its body, yet the server ended the connection
    expect(listeners.count).toBe(0);
  });

  it('answers a chunked body (no Content-Length) over maxBodyBytes 413, and closes the connection though the body never ends', async () => {
    const { served: server } = await start({ maxBodyBytes: LIMIT });
    const { req, answer, socketClosed } = rawPost(server.port, {});
    req.write(
      `{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"pad": "${'x'.repeat(4 * LIMIT)}`,
    );
    const { status, body } = await answer;
    expect(status).toBe(413);
    expect(JSON.parse(body).error.message).toMatch(/over 1024 bytes/);
    await socketClosed;
    expect(server.sessions).toBe(0);
  });

  it('stops reading a body that never ends: the server closes the socket while the client is still sending', async () => {
    const { served: server } = await start({ maxBodyBytes: LIMIT });
    const { req, socketClosed } = rawPost(server.port, {});
    let closed = false;
    void socketClosed.then(() => {
      closed = true;
    });
    const chunk = Buffer.alloc(16 * 1024, 0x20);
    const bound = 256 * 1024 * 1024; // a server that read forever would let the client reach this
    let written = 0;
    while (!closed && written < bound) {
      written += chunk.length;
      if (!req.write(chunk)) {
        await Promise.race([new Promise((resolve) => req.once('drain', resolve)), socketClosed]);
      }
    }
    await socketClosed;
    expect(written).toBeLessThan(bound);
  });

  it('uses serve.maxBodyBytes from the config', async () => {
    const { url } = await start({}, { serve: { maxBodyBytes: 64 } });
    const response = await post(url, INITIALIZE);
    expect(response.status).toBe(413);
    expect((await errorOf(response)).message).toMatch(/over 64 bytes/);
  });
});
