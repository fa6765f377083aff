import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createHost, type McpHttpServer, serveHttp, type ToolHost } from '@toolhost/host';
import { defineTool } from '@toolhost/plugin-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { rotateToken } from '../../packages/host/src/serve/auth/tokens.js';
import { RateLimiter } from '../../packages/host/src/serve/rate-limit.js';

const call = (url: string, token: string, name: string, id = 1) =>
  fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': name,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: {
        name,
        arguments: {},
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'limited', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  });

describe('rate limits per principal and per tool', () => {
  let root: string;
  let host: ToolHost;
  let served: McpHttpServer;
  let other: string;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'toolhost-rate-'));
    other = (await rotateToken(root, 'other')).token;
    await rotateToken(root, 'default');
    host = await createHost({
      root,
      builtins: false,
      pluginsDir: false,
      configFile: false,
      serve: { rateLimits: { principal: { perMinute: 6, burst: 3 }, tools: { deploy: { perMinute: 1 } } } },
      customTools: ['echo', 'deploy'].map((name) =>
        defineTool({ name, description: name, input: z.object({}), execute: () => `${name} ran` }),
      ),
    });
    served = await serveHttp(host);
  });

  afterAll(async () => {
    await served.close();
    await host.close();
    await rm(root, { recursive: true, force: true });
  });

  it("answers 429 with Retry-After once a caller's bucket is empty, naming the limit; another caller is not held back", async () => {
    const token = served.token ?? '';
    expect((await call(served.url, token, 'deploy')).status).toBe(200);
    const tool = await call(served.url, token, 'deploy', 2);
    expect(tool.status).toBe(429);
    const toolBody = (await tool.json()) as {
      id: number;
      error: { message: string; data: { retryAfterMs: number } };
    };
    expect(toolBody.id).toBe(2);
    expect(toolBody.error.message).toMatch(
      /^rate limited: token:default may call "deploy" 1 times a minute \(serve\.rateLimits\.tools\["deploy"\]\); retry in \d+\.\d s$/,
    );
    expect(toolBody.error.data.retryAfterMs).toBeGreaterThan(50_000);
    expect(Number(tool.headers.get('retry-after'))).toBeGreaterThanOrEqual(50);

    // The principal's bucket: 3 at once (one taken by the first deploy, the refused one took none).
    expect((await call(served.url, token, 'echo')).status).toBe(200);
    expect((await call(served.url, token, 'echo')).status).toBe(200);
    const over = await call(served.url, token, 'echo');
    expect(over.status).toBe(429);
    expect(((await over.json()) as { error: { message: string } }).error.message).toContain(
      'token:default may call tools 6 times a minute (serve.rateLimits.principal)',
    );
    expect((await call(served.url, other, 'echo')).status).toBe(200);
  });

  it('an SDK client sees the refusal with when to retry', async () => {
    const client = new Client({ name: 'limited', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(served.url), {
        requestInit: { headers: { authorization: `Bearer ${served.token}` } },
      }),
    );
    try {
      await expect(client.callTool({ name: 'echo', arguments: {} })).rejects.toThrow(/retry in \d+\.\d s/);
      // Listing is not a tool call: not limited.
      expect((await client.listTools()).tools.length).toBe(2);
    } finally {
      await client.close();
    }
  });
});

describe('the token bucket', () => {
  it('refills at perMinute up to burst, and takes from every bucket or from none', () => {
    let now = 0;
    const limiter = new RateLimiter(
      () => ({ principal: { perMinute: 60, burst: 2 }, tools: { 'x*': { perMinute: 6, burst: 1 } } }),
      () => now,
    );
    expect(limiter.take('p', 'y')).toBeUndefined();
    expect(limiter.take('p', 'x1')).toBeUndefined();
    expect(limiter.take('p', 'y')?.retryAfterMs).toBe(1000);
    now = 1000;
    // The principal's bucket has one again, the tool's does not: refused, and nothing is taken.
    expect(limiter.take('p', 'x1')?.retryAfterMs).toBe(9000);
    expect(limiter.take('p', 'y')).toBeUndefined();
    now = 60_000;
    expect(limiter.take('p', 'x1')).toBeUndefined();
    // A minute idle refills up to burst (2), not to a minute's worth: one more, then refused.
    expect(limiter.take('p', 'y')).toBeUndefined();
    expect(limiter.take('p', 'y')?.retryAfterMs).toBe(1000);
    expect(limiter.take('q', 'y')).toBeUndefined();
  });
});
