/**
 * A client that stops reading must not keep what the server has to send it in the server's
 * memory: `closeStalledWrites` closes a connection whose waiting output has not moved for the
 * stall time, and leaves a slow client that reads at its own pace alone. Real sockets, real HTTP:
 * the stalled client is a TCP connection that sends its request and never reads.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createHost, type McpHttpServer, serveHttp, type ToolHost, type WriteStall } from '@toolhost/host';
import { defineTool } from '@toolhost/plugin-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { writeWebResponse } from '../../packages/host/src/serve/node-web.js';
import { closeStalledWrites } from '../../packages/host/src/serve/stalled-writes.js';
import { MCP_HEADERS, openSession } from '../mcp/mcp-http-helpers.js';

/** More than the kernel's buffers of a loopback connection take from a client that reads nothing. */
const BODY_BYTES = 16 * 1024 * 1024;

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Sends raw HTTP bytes on a new connection, and either never reads (`paused`) or reads as told. */
function rawClient(port: number, request: string, paused: boolean): Socket {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => {});
  socket.write(request);
  if (paused) socket.pause();
  cleanups.push(() => socket.destroy());
  return socket;
}

const closed = (socket: Socket) =>
  new Promise<void>((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve())));

/**
 * A server whose every response is `BODY_BYTES` of text written through `writeWebResponse`;
 * `ended` resolves with whether the response had finished when its connection closed.
 */
async function bigAnswers(stallMs: number, onStall?: (stall: WriteStall) => void) {
  let ended!: (finished: boolean) => void;
  const end = new Promise<boolean>((resolve) => {
    ended = resolve;
  });
  const server: Server = createServer((_req, res) => {
    res.once('close', () => ended(res.writableFinished));
    const body = new Uint8Array(BODY_BYTES).fill(120);
    void writeWebResponse(res, new Response(body, { headers: { 'content-type': 'text/plain' } }));
  });
  const stop = closeStalledWrites(server, stallMs, onStall);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  cleanups.push(() => server.closeAllConnections());
  cleanups.push(stop);
  return { port: (server.address() as AddressInfo).port, end };
}

describe('closeStalledWrites', () => {
  it('closes a connection whose client has read nothing of its response for the stall time', async () => {
    const { port, end } = await bigAnswers(300);
    const socket = rawClient(port, 'GET / HTTP/1.1\r\nhost: x\r\n\r\n', true);
    // Closed by the server with its response unfinished: the rest was dropped, not kept.
    expect(await end).toBe(false);
    // The client, reading again, finds what the kernel held and then the end of the connection.
    socket.resume();
    await closed(socket);
    expect(socket.bytesRead).toBeLessThan(BODY_BYTES);
  });

  it('counts no stall across a spell in which this process was too busy to look: the wait starts again after it', async () => {
    const STALL_MS = 400;
    let cutAt = 0;
    let cut!: () => void;
    const stalled = new Promise<void>((resolve) => {
      cut = resolve;
    });
    const { port } = await bigAnswers(STALL_MS, () => {
      cutAt = performance.now();
      cut();
    });
    rawClient(port, 'GET / HTTP/1.1\r\nhost: x\r\n\r\n', true);
    // Long enough for the sweeps (every STALL_MS / 4) to have seen its answer waiting: no event
    // says when a sweep has run.
    await new Promise((resolve) => setTimeout(resolve, STALL_MS * 0.75));
    // Busy past the stall time: no sweep can run, nor could a client of this process read.
    const busyUntil = performance.now() + STALL_MS * 1.5;
    while (performance.now() < busyUntil) {
      // spin
    }
    const busyEnded = performance.now();
    await stalled;
    // Closed a whole stall time after the busy spell at the soonest, not at the first look after it.
    expect(cutAt - busyEnded).toBeGreaterThanOrEqual(STALL_MS);
  });

  it('goes on closing the other stalled connections when the listener throws', async () => {
    const heard: string[] = [];
    let bothHeard!: () => void;
    const both = new Promise<void>((resolve) => {
      bothHeard = resolve;
    });
    const { port } = await bigAnswers(300, (stall) => {
      heard.push(stall.remote);
      if (heard.length === 2) bothHeard();
      throw new Error('a listener that fails');
    });
    const sockets = [0, 1].map(() => rawClient(port, 'GET / HTTP/1.1\r\nhost: x\r\n\r\n', true));
    await both;
    expect(heard.sort()).toEqual(sockets.map((socket) => `127.0.0.1:${socket.localPort}`).sort());
  });

  it('leaves a client that reads slowly alone, however long the whole response takes', async () => {
    // Progress shows when the kernel takes more, after the client has read about half of what it
    // holds (≈ 1.5 MB): the stall time leaves a loaded machine's slow timers room for that.
    const { port, end } = await bigAnswers(3000);
    const socket = rawClient(port, 'GET / HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n', false);
    let received = 0;
    let pauses = 0;
    socket.on('data', (chunk: Buffer) => {
      received += chunk.byteLength;
      // A reader slower than the server: a short rest after each read, far below the stall time.
      pauses += 1;
      socket.pause();
      setTimeout(() => socket.resume(), 2);
    });
    expect(await end).toBe(true);
    await closed(socket);
    // Head and all of the body, read in many rests.
    expect(received).toBeGreaterThan(BODY_BYTES);
    expect(pauses).toBeGreaterThan(100);
  });
});

describe('serveHttp with a client that stops reading', () => {
  let host: ToolHost;
  let served: McpHttpServer;
  let root: string;
  afterEach(async () => {
    await served.close();
    await host.close();
    await rm(root, { recursive: true, force: true });
  });

  it('closes the stalled connections, says so, and goes on serving everyone else', async () => {
    // Larger than the kernel's buffers take: most of the answer waits in the server.
    const text = 'x'.repeat(12_000_000);
    root = await mkdtemp(path.join(tmpdir(), 'toolhost-stall-'));
    await writeFile(
      path.join(root, 'toolhost.config.json'),
      JSON.stringify({ limits: { maxResultChars: 16_000_000 } }),
    );
    host = await createHost({
      root,
      pluginsDir: false,
      builtins: false,
      customTools: [
        defineTool({ name: 'big', description: 'A large result', input: z.object({}), execute: () => text }),
      ],
    });
    const STALLED = 3;
    const stalls: WriteStall[] = [];
    let allStalled!: () => void;
    const stalledAll = new Promise<void>((resolve) => {
      allStalled = resolve;
    });
    served = await serveHttp(host, {
      auth: { allowUnauthenticated: true },
      writeStallMs: 300,
      onWriteStall: (stall) => {
        stalls.push(stall);
        if (stalls.length === STALLED) allStalled();
      },
    });
    const session = await openSession(served.url);
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'big', arguments: {} },
    });
    const head = Object.entries({
      ...MCP_HEADERS,
      'mcp-session-id': session,
      host: `127.0.0.1:${served.port}`,
      'content-length': String(Buffer.byteLength(body)),
    })
      .map(([name, value]) => `${name}: ${value}`)
      .join('\r\n');
    // Calls on connections that never read: each answer is ≈ 12 MB the server would hold.
    const stalled = Array.from({ length: STALLED }, () =>
      rawClient(served.port, `POST /mcp HTTP/1.1\r\n${head}\r\n\r\n${body}`, true),
    );
    await stalledAll;
    const ports = stalled.map((socket) => `127.0.0.1:${socket.localPort}`).sort();
    expect(stalls.map((stall) => stall.remote).sort()).toEqual(ports);
    for (const stall of stalls) expect(stall.stalledMs).toBeGreaterThanOrEqual(300);
    // Each, reading again, gets what the kernel held, then the end of its connection.
    for (const socket of stalled) socket.resume();
    await Promise.all(stalled.map(closed));
    for (const socket of stalled) expect(socket.bytesRead).toBeLessThan(text.length);

    // Another client, reading, gets the whole result.
    const answer = await fetch(served.url, {
      method: 'POST',
      headers: { ...MCP_HEADERS, 'mcp-session-id': session },
      body: body.replace('"id":2', '"id":3'),
    });
    const whole = await answer.text();
    expect(answer.status).toBe(200);
    expect(whole).toContain(text);
  });
});
