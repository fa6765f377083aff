import { cp, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { createHost, type McpHttpServer, serveHttp, type ToolHost } from '@toolhost/host';
import { defineTool } from '@toolhost/plugin-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';

const here = path.dirname(fileURLToPath(import.meta.url));
const hostModule = path.resolve(here, '../../packages/host/dist/index.js');
const fixture = path.resolve(here, '../fixtures/plugins/healthy');
const PIN = { versionNegotiation: { mode: { pin: '2026-07-28' } } } as const;
const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

/** A third-party MCP server (the SDK's own, 2026-capable) whose tool answers with the `_meta` it got. */
async function metaEchoServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: 'meta-echo', version: '1.0.0' });
    server.registerTool('meta', { description: 'Answers with the _meta of its call' }, async (ctx) => ({
      content: [{ type: 'text', text: JSON.stringify(ctx.mcpReq._meta ?? {}) }],
    }));
    return server;
  });
  const http: HttpServer = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [key, value] of Object.entries(req.headers))
      if (typeof value === 'string') headers.set(key, value);
    const response = await handler.fetch(
      new Request(`http://127.0.0.1${req.url}`, {
        method: req.method ?? 'GET',
        headers,
        ...(chunks.length === 0 ? {} : { body: Buffer.concat(chunks) }),
      }),
    );
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      await handler.close();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

describe('MCP 2026-07-28: the SDK v2 client pinned to the revision', () => {
  let root: string;
  let host: ToolHost;
  let served: McpHttpServer;
  let echo: { url: string; close: () => Promise<void> };

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'toolhost-2026-'));
    await cp(fixture, path.join(root, 'plugins', 'healthy'), { recursive: true });
    echo = await metaEchoServer();
    host = await createHost({
      root,
      builtins: false,
      configFile: false,
      cache: false,
      sandbox: 'inline',
      mcpServers: { echo: { url: echo.url, net: [new URL(echo.url).host] } },
    });
    served = await serveHttp(host, {
      auth: { allowUnauthenticated: true },
    });
  });

  afterAll(async () => {
    await served?.close();
    await host?.close();
    await echo?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('connects over HTTP without a session, lists and calls a plugin tool', async () => {
    const client = new Client({ name: 'pinned', version: '1.0.0' }, PIN);
    await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
    expect(client.getProtocolEra()).toBe('modern');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['healthy_echo', 'mcp__echo__meta']);
    const result = await client.callTool({ name: 'healthy_echo', arguments: { text: 'hi' } });
    expect(result.content).toEqual([{ type: 'text', text: 'echo: hi' }]);
    await client.close();
  });

  it("passes the request's traceparent on to a bridged server's call", async () => {
    const client = new Client({ name: 'traced', version: '1.0.0' }, PIN);
    await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
    const result = await client.callTool({
      name: 'mcp__echo__meta',
      arguments: {},
      _meta: { traceparent: TRACEPARENT, tracestate: 'vendor=1' },
    });
    const text = (result.content[0] as { text: string }).text;
    expect(JSON.parse(text)).toMatchObject({ traceparent: TRACEPARENT, tracestate: 'vendor=1' });
    await client.close();
  });

  it('hears of a list change on its subscriptions/listen stream', async () => {
    const client = new Client({ name: 'listener', version: '1.0.0' }, PIN);
    const changed = new Promise<void>((resolve) =>
      client.setNotificationHandler('notifications/tools/list_changed', () => resolve()),
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
    const subscription = await client.listen({ toolsListChanged: true });
    const remove = host.addTool(
      defineTool({ name: 'late', description: 'Added late', input: z.object({}), execute: () => 'late' }),
    );
    await changed;
    remove();
    await subscription.close?.();
    await client.close();
  });

  it('connects over stdio, pinned, in one process', async () => {
    const script = `
      const { createHost, serveStdio } = await import(${JSON.stringify(hostModule)});
      const host = await createHost({ root: ${JSON.stringify(root)}, builtins: false, sandbox: 'process', cache: false, configFile: false });
      const served = await serveStdio(host);
      await served.closed;
      await host.close();
    `;
    const client = new Client({ name: 'stdio-pinned', version: '1.0.0' }, PIN);
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: ['--input-type=module', '-e', script] }),
    );
    expect(client.getProtocolEra()).toBe('modern');
    const result = await client.callTool({ name: 'healthy_echo', arguments: { text: 'pipe' } });
    expect(result.content).toEqual([{ type: 'text', text: 'echo: pipe' }]);
    await client.close();
  });
});
