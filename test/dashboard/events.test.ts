import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type McpHttpServer, serveHttp } from '@toolhost/host';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventHub } from '../../packages/host/src/serve/dashboard/hub.js';
import { pluginSource, watchedProject } from '../reload/harness.js';
import { openEvents, raw } from './helpers.js';

/** `/api/events`: rebuilds and plugin errors as they happen, bounded history, resume, slow clients. */
let project: Awaited<ReturnType<typeof watchedProject>>;
let served: McpHttpServer;
let base: string;
let token: string;

beforeAll(async () => {
  project = await watchedProject();
  await project.writePlugin('live', pluginSource('live', 'live_one', '"one"'));
  await project.start();
  served = await serveHttp(project.host, {
    auth: { allowUnauthenticated: true },
    dashboard: { assetsDir: project.root },
  });
  base = served.url.replace(/\/mcp$/, '');
  token = new URL(served.dashboardUrl ?? '').searchParams.get('token') ?? '';
}, 60_000);

afterAll(async () => {
  await served?.close();
  await project?.close();
});

describe('live events', () => {
  it('a plugin edit streams a rebuild with its cause, duration and diff', async () => {
    const events = openEvents(`${base}/api/events?token=${token}`);
    const res = await events.opened;
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(res.headers['content-security-policy']).toMatch(/default-src 'self'/);
    await project.writePlugin('live', pluginSource('live', 'live_two', '"two"'));
    const rebuild = await events.until((e) => e.type === 'rebuild' && e.diff.added.includes('live_two'));
    expect(rebuild.cause).toBe('plugins:live');
    expect(rebuild.diff.removed).toEqual(['live_one']);
    expect(rebuild.durationMs).toBeGreaterThan(0);
    expect(rebuild.version).toBe(project.host.version);
    const message = events.messages.find(
      (m) => m.data !== undefined && JSON.parse(m.data).seq === rebuild.seq,
    );
    expect(message?.id).toBe(String(rebuild.seq));
    events.close();
  });

  it('a broken save streams a plugin-error with file:line:column', async () => {
    const events = openEvents(`${base}/api/events?token=${token}`);
    await events.opened;
    await project.writePlugin(
      'live',
      'import { definePlugin } from "@toolhost/plugin-sdk";\n\nexport default definePlugin({ id: "live", tools: [ }]);\n',
    );
    const error = await events.until((e) => e.type === 'plugin-error');
    expect(error).toMatchObject({ plugin: 'live', file: 'index.ts', line: 3, column: expect.any(Number) });
    expect(error.message).toMatch(/index\.ts:3:\d+/);
    events.close();
  });
});

describe('history and resume', () => {
  it('keeps the last 500 events; Last-Event-ID resumes after that id', async () => {
    const hub = new EventHub();
    for (let i = 0; i < 620; i++) hub.publish({ type: 'config-error', message: `e${i}` });
    const kept = hub.history();
    expect(kept).toHaveLength(500);
    expect(kept[0]?.seq).toBe(121);
    expect(kept.at(-1)?.seq).toBe(620);

    const server = createServer((req, res) => hub.attach(req, res, {}));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const all = openEvents(url);
    await all.until((e) => e.seq === 620);
    expect(all.events()).toHaveLength(500);
    all.close();
    const resumed = openEvents(url, { 'last-event-id': '610' });
    await resumed.until((e) => e.seq === 620);
    expect(resumed.events().map((e) => e.message)).toEqual(
      Array.from({ length: 10 }, (_, i) => `e${610 + i}`),
    );
    // A resume from before the history is told what it missed.
    const late = openEvents(url, { 'last-event-id': '5' });
    await late.until((e) => e.seq === 620);
    expect(late.messages[0]?.comment).toBe('events 6 to 120 are no longer kept');
    late.close();
    server.close();
    resumed.close();
  });

  it('drops a client that does not read, saying so, instead of buffering without bound', async () => {
    const hub = new EventHub({ maxClientBufferBytes: 64 * 1024 });
    const server = createServer((req, res) => hub.attach(req, res, {}));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const slow = openEvents(`http://127.0.0.1:${port}/`);
    const res = await slow.opened;
    res.pause();
    const big = 'x'.repeat(1900);
    // Bounded: the socket and the client's buffers fill within a few MB, then the hub drops it.
    for (let i = 0; i < 20_000 && hub.clients > 0; i++) {
      hub.publish({ type: 'config-error', message: big });
      if (i % 100 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    expect(hub.clients).toBe(0);
    res.resume();
    await slow.closed();
    expect(slow.messages.at(-1)).toMatchObject({ event: 'dropped' });
    expect(slow.messages.at(-1)?.data).toMatch(/read too slowly.*Last-Event-ID/);
    server.close();
  });
});

describe('a cap on event streams', () => {
  /** A hub behind a plain server, and a way to open streams to it. */
  async function hubServer(hub: EventHub) {
    const server = createServer((req, res) => hub.attach(req, res, {}));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const opened: ReturnType<typeof openEvents>[] = [];
    const open = async () => {
      const stream = openEvents(url);
      opened.push(stream);
      await stream.comment('connected');
      return stream;
    };
    const close = () => {
      for (const stream of opened) stream.close();
      server.close();
    };
    return { open, close };
  }

  it('drops the oldest stream past 8, telling it why and not to reconnect; the others keep streaming', async () => {
    const hub = new EventHub();
    const { open, close } = await hubServer(hub);
    try {
      const streams = [];
      for (let i = 0; i < 8; i++) streams.push(await open());
      expect(hub.clients).toBe(8);
      const ninth = await open();
      expect(hub.clients).toBe(8);
      await streams[0]?.closed();
      const dropped = streams[0]?.messages.at(-1);
      expect(dropped?.event).toBe('dropped');
      expect(JSON.parse(dropped?.data ?? '{}')).toEqual({
        reason: expect.stringMatching(/more than 8 pages .* the oldest/),
        reconnect: false,
      });
      hub.publish({ type: 'config-error', message: 'after the cap' });
      for (const stream of [...streams.slice(1), ninth]) {
        await stream.until((e) => e.message === 'after the cap');
      }
      expect(streams[0]?.events().map((e) => e.message)).not.toContain('after the cap');
    } finally {
      close();
      hub.close();
    }
  });

  it('takes its cap from maxStreams', async () => {
    const hub = new EventHub({ maxStreams: 1 });
    const { open, close } = await hubServer(hub);
    try {
      const first = await open();
      const second = await open();
      expect(hub.clients).toBe(1);
      await first.closed();
      expect(JSON.parse(first.messages.at(-1)?.data ?? '{}').reason).toMatch(/more than 1 page/);
      expect(second.ended).toBe(false);
      expect(hub.clients).toBe(1);
    } finally {
      close();
      hub.close();
    }
  });
});

describe('served without a page listening', () => {
  it('GET /api/events still answers 403 to a foreign Origin', async () => {
    const answer = await raw(`${base}/api/events`, { headers: { origin: 'http://evil.example' } });
    expect(answer.status).toBe(403);
  });
});
