import { request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  LoggingMessageNotificationSchema,
  McpError,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { createHost, type McpHttpServer, serveHttp, type ToolHost } from '@toolhost/host';
import { defineTool, env } from '@toolhost/plugin-sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { inSession, messagesOf, openSession, post } from './mcp-http-helpers.js';

const PNG = 'iVBORw0KGgo=';

const tools = [
  defineTool({
    name: 'greet',
    title: 'Greeter',
    description: 'Greets someone',
    input: z.object({ who: z.string() }),
    output: z.object({ greeting: z.string() }),
    annotations: { readOnlyHint: true, idempotentHint: true },
    execute: ({ who }) => ({
      content: [{ type: 'text', text: `hello ${who}` }],
      structuredContent: { greeting: `hello ${who}` },
    }),
  }),
  defineTool({
    name: 'everything',
    description: 'Returns one block of every content type',
    input: z.object({}),
    execute: () => [
      { type: 'text', text: 'text' },
      { type: 'image', data: PNG, mimeType: 'image/png' },
      { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
      { type: 'resource', resource: { uri: 'file:///notes.md', mimeType: 'text/markdown', text: '# notes' } },
      {
        type: 'resource_link',
        uri: 'file:///big.bin',
        name: 'big.bin',
        mimeType: 'application/octet-stream',
      },
    ],
  }),
  defineTool({
    name: 'fails',
    description: 'Always throws',
    input: z.object({}),
    execute: () => {
      throw new Error('the disk is full');
    },
  }),
  defineTool({
    name: 'steps',
    description: 'Reports progress and logs at two levels',
    input: z.object({}),
    execute: (_input, ctx) => {
      ctx.log.info('an info line');
      ctx.log.warn('a warning line');
      ctx.progress(1, 2, 'half');
      ctx.progress(2, 2, 'done');
      return 'stepped';
    },
  }),
  defineTool({
    name: 'secret',
    description: 'Hidden until SECRET_KEY is set',
    input: z.object({}),
    availability: env('SECRET_KEY'),
    execute: () => 'never',
  }),
];

describe('toolhost served over MCP streamable HTTP', () => {
  let host: ToolHost;
  let served: McpHttpServer;
  let client: Client;
  const aborted: { resolve: (reason: unknown) => void; promise: Promise<unknown> } = (() => {
    let resolve: (reason: unknown) => void = () => {};
    const promise = new Promise<unknown>((r) => {
      resolve = r;
    });
    return { resolve, promise };
  })();

  beforeEach(async () => {
    const waits = defineTool({
      name: 'waits',
      description: 'Waits until cancelled',
      input: z.object({}),
      execute: (_input, ctx) =>
        new Promise<string>(() => {
          ctx.signal.addEventListener('abort', () => aborted.resolve(ctx.signal.reason));
        }),
    });
    host = await createHost({
      pluginsDir: false,
      builtins: false,
      availability: { env: {} },
      customTools: [...tools, waits],
    });
    served = await serveHttp(host, {
      auth: { allowUnauthenticated: true },
    });
    client = new Client({ name: 'test-client', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
  });

  afterEach(async () => {
    await client.close();
    await served.close();
    await host.close();
  });

  it('binds to 127.0.0.1 and lists the visible tools with titles, schemas and annotations', async () => {
    expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const { tools: listed } = await client.listTools();
    expect(listed.map((t) => t.name)).toEqual(['everything', 'fails', 'greet', 'steps', 'waits']);
    const greet = listed.find((t) => t.name === 'greet');
    expect(greet).toMatchObject({
      title: 'Greeter',
      description: 'Greets someone',
      inputSchema: { type: 'object', properties: { who: { type: 'string' } }, required: ['who'] },
      outputSchema: { type: 'object', properties: { greeting: { type: 'string' } } },
      annotations: { readOnlyHint: true, idempotentHint: true },
    });
  });

  it('keeps an idle connection open 65 s, and says so: a busy client does not pick one the server is closing', async () => {
    // Node's default is 5 s; under load, clients then lost POSTs to "other side closed".
    const response = await fetch(served.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    await response.body?.cancel();
    expect(response.headers.get('keep-alive')).toBe('timeout=65');
  });

  it('calls a tool through the wrapper, with structured output', async () => {
    const result = await client.callTool({ name: 'greet', arguments: { who: 'ada' } });
    expect(result).toMatchObject({
      content: [{ type: 'text', text: 'hello ada' }],
      structuredContent: { greeting: 'hello ada' },
    });
    expect(result.isError).toBeFalsy();
  });

  it('carries every content type', async () => {
    const result = await client.callTool({ name: 'everything', arguments: {} });
    expect((result.content as { type: string }[]).map((c) => c.type)).toEqual([
      'text',
      'image',
      'audio',
      'resource',
      'resource_link',
    ]);
    expect(result.content).toContainEqual({ type: 'image', data: PNG, mimeType: 'image/png' });
  });

  it('answers a failure inside a tool with isError, and invalid input too', async () => {
    const failed = await client.callTool({ name: 'fails', arguments: {} });
    expect(failed).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'Tool "fails" failed: the disk is full' }],
    });
    const invalid = await client.callTool({ name: 'greet', arguments: { who: 1 } });
    expect(invalid.isError).toBe(true);
  });

  it('makes an unknown or hidden tool a protocol error that says which', async () => {
    await expect(client.callTool({ name: 'nope', arguments: {} })).rejects.toThrow(McpError);
    await expect(client.callTool({ name: 'nope', arguments: {} })).rejects.toThrow(/Unknown tool "nope"/);
    // The SDK client prefixes "MCP error <code>: " once; the server must not have put one in already.
    await expect(client.callTool({ name: 'nope', arguments: {} })).rejects.toThrow(
      /^MCP error -32602: Unknown tool "nope"/,
    );
    await expect(client.callTool({ name: 'secret', arguments: {} })).rejects.toThrow(
      /env-missing: environment variable SECRET_KEY/,
    );
  });

  it('answers a call that sends nothing before its result as one JSON body, and one that logs as an event stream', async () => {
    const session = await openSession(served.url);
    const quick = await inSession(served.url, session, 'tools/call', {
      name: 'greet',
      arguments: { who: 'json' },
    });
    expect(quick.status).toBe(200);
    expect(quick.headers.get('content-type')).toBe('application/json');
    expect(await quick.json()).toMatchObject({
      jsonrpc: '2.0',
      id: 2,
      result: { structuredContent: { greeting: 'hello json' } },
    });
    // Its log lines (the level is the SDK's default: all) go first, on an event stream.
    const logging = await inSession(served.url, session, 'tools/call', { name: 'steps', arguments: {} });
    expect(logging.headers.get('content-type')).toBe('text/event-stream');
    const events = messagesOf(await logging.text());
    expect(events.map((event) => event.method ?? 'result')).toEqual([
      'notifications/message',
      'notifications/message',
      'result',
    ]);
    expect(events.at(-1)).toMatchObject({ id: 2, result: { content: [{ type: 'text', text: 'stepped' }] } });
  });

  it('answers a batch of two calls on one event stream with both answers, not the first alone as JSON', async () => {
    const session = await openSession(served.url);
    const call = (id: number, who: string) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'greet', arguments: { who } },
    });
    const batch = await post(served.url, [call(10, 'a'), call(11, 'b')], {
      'mcp-session-id': session,
      'mcp-protocol-version': '2025-06-18',
    });
    const text = await batch.text();
    expect(batch.headers.get('content-type'), text).toBe('text/event-stream');
    const answers = messagesOf(text) as {
      id: number;
      result?: { structuredContent?: { greeting?: string } };
    }[];
    expect(answers.map((answer) => answer.id).sort()).toEqual([10, 11]);
    expect(answers.map((answer) => answer.result?.structuredContent?.greeting).sort()).toEqual([
      'hello a',
      'hello b',
    ]);
  });

  it('forwards progress when the client asked for it, and logging honouring setLevel', async () => {
    const logs: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      logs.push(n.params);
    });
    await client.setLoggingLevel('warning');
    const progress: unknown[] = [];
    const result = await client.callTool({ name: 'steps', arguments: {} }, undefined, {
      onprogress: (p) => progress.push(p),
    });
    expect(result.content).toEqual([{ type: 'text', text: 'stepped' }]);
    expect(progress).toEqual([
      { progress: 1, total: 2, message: 'half' },
      { progress: 2, total: 2, message: 'done' },
    ]);
    // Notifications of a call are sent before its response on the same stream.
    expect(logs).toEqual([{ level: 'warning', logger: 'steps', data: 'a warning line' }]);
  });

  it('aborts ctx.signal when the client cancels', async () => {
    const controller = new AbortController();
    const call = client.callTool({ name: 'waits', arguments: {} }, undefined, { signal: controller.signal });
    // Cancel once the request is surely in flight: the server has started the call when its
    // session counts it; simplest observable is to cancel after a listTools round trip.
    await client.listTools();
    controller.abort('user stop');
    await expect(call).rejects.toThrow();
    expect(String(await aborted.promise)).toMatch(/cancel|abort|stop/i);
  });

  it('sends tools/list_changed on every swap, and the next list shows the new set', async () => {
    const changed = new Promise<void>((resolve) =>
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
    );
    host.addTool(
      defineTool({ name: 'late', description: 'Added later', input: z.object({}), execute: () => 'late' }),
    );
    await changed;
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('late');
  });

  it('rejects a foreign Host or Origin (DNS rebinding)', async () => {
    const port = served.port;
    const send = (headers: Record<string, string>) =>
      new Promise<number>((resolve, fail) => {
        const req = request(
          {
            host: '127.0.0.1',
            port,
            path: '/mcp',
            method: 'POST',
            headers: { 'content-type': 'application/json', ...headers },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', fail);
        req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
      });
    expect(await send({ host: 'evil.example:80' })).toBe(403);
    expect(await send({ host: `127.0.0.1:${port}`, origin: 'http://evil.example' })).toBe(403);
    expect(await send({ host: `localhost:${port}`, origin: `http://localhost:${port}` })).toBe(400); // allowed, but not initialize
  });

  it('refuses an Origin of the same host on another port or scheme: another local server is another site', async () => {
    const port = served.port;
    const send = (origin: string) =>
      fetch(served.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
    for (const origin of [
      `http://localhost:${port + 1}`,
      'http://localhost:1',
      'ftp://localhost',
      `https://127.0.0.1:${port}`,
    ]) {
      const answer = await send(origin);
      expect(answer.status, origin).toBe(403);
      expect(((await answer.json()) as { error: { message: string } }).error.message).toContain(
        `Origin "${origin}"`,
      );
    }
    expect((await send(`http://127.0.0.1:${port}`)).status).toBe(400); // allowed, but not initialize
  });
});
