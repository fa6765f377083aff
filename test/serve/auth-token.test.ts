import { mkdtemp, rm, stat } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createHost, type McpHttpServer, serveHttp, type ToolHost } from '@toolhost/host';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rotateToken } from '../../packages/host/src/serve/auth/tokens.js';
import { INITIALIZE, MCP_HEADERS, post } from '../mcp/mcp-http-helpers.js';

/** A GET of `url` with `token` over `agent`: its status, and whether it rode an open connection. */
function getOver(agent: Agent, url: string, token: string): Promise<{ status: number; reused: boolean }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, reused: req.reusedSocket }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A client that sends `token` as its bearer token. */
async function connect(url: string, token: string | undefined): Promise<Client> {
  const client = new Client({ name: 'auth-test', version: '1.0.0' });
  const requestInit =
    token === undefined ? {} : { requestInit: { headers: { authorization: `Bearer ${token}` } } };
  await client.connect(new StreamableHTTPClientTransport(new URL(url), requestInit));
  return client;
}

describe('the HTTP endpoint wants a bearer token by default', () => {
  let root: string;
  let host: ToolHost;
  let served: McpHttpServer;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'toolhost-auth-'));
    host = await createHost({ root, watch: false, builtins: { enabled: true } });
    served = await serveHttp(host);
  });

  afterAll(async () => {
    await served.close();
    await host.close();
    await rm(root, { recursive: true, force: true });
  });

  it('makes a project token on first use, in .toolhost/serve-tokens.json with mode 0600', async () => {
    expect(served.token).toMatch(/^th_[A-Za-z0-9_-]{43}$/);
    const file = await stat(path.join(root, '.toolhost', 'serve-tokens.json'));
    expect(file.mode & 0o777).toBe(0o600);
  });

  it('answers a request without a token with 401 and a Bearer challenge that says how to get one', async () => {
    const response = await post(served.url, INITIALIZE);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
    const body = (await response.json()) as { error: string; error_description: string };
    expect(body.error).toBe('invalid_token');
    expect(body.error_description).toContain('toolhost token');
    expect(served.sessions).toBe(0);
  });

  it('refuses a wrong token, a prefix of the right one, the right one with more after it, and another scheme', async () => {
    const token = served.token ?? '';
    for (const authorization of [
      'Bearer th_wrong',
      `Bearer ${token.slice(0, -1)}`,
      `Bearer ${token}x`,
      `Basic ${token}`,
      'Bearer',
    ]) {
      const response = await post(served.url, INITIALIZE, { authorization });
      expect(response.status, authorization).toBe(401);
      expect(response.headers.get('www-authenticate'), authorization).toMatch(/^Bearer /);
    }
    // A GET or DELETE with a session id is refused the same way, before the id is looked at.
    const get = await fetch(served.url, { headers: { ...MCP_HEADERS, 'mcp-session-id': 'x' } });
    expect(get.status).toBe(401);
    expect(served.sessions).toBe(0);
  });

  it("lets the SDK client in with the project's token: it lists and calls tools", async () => {
    const client = await connect(served.url, served.token);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('ls');
      const result = await client.callTool({ name: 'ls', arguments: { path: '.' } });
      expect(result.isError).not.toBe(true);
    } finally {
      await client.close();
    }
  });

  it('without a token the SDK client cannot even connect', async () => {
    await expect(connect(served.url, undefined)).rejects.toThrow(/invalid_token/);
  });

  it('keeps a session to the token that opened it: another token with its id gets 404', async () => {
    const other = await rotateToken(root, 'other');
    const client = await connect(served.url, served.token);
    try {
      const id = (client.transport as StreamableHTTPClientTransport).sessionId ?? '';
      expect(id).not.toBe('');
      const list = { jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} };
      const stolen = await post(served.url, list, {
        authorization: `Bearer ${other.token}`,
        'mcp-session-id': id,
        'mcp-protocol-version': '2025-11-25',
      });
      expect(stolen.status).toBe(404);
      // The owner's session is untouched.
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });

  it('honours a rotation from the next request: the old token is refused, the new one works', async () => {
    const before = served.token ?? '';
    const fresh = await rotateToken(root, 'default');
    const old = await post(served.url, INITIALIZE, { authorization: `Bearer ${before}` });
    expect(old.status).toBe(401);
    const client = await connect(served.url, fresh.token);
    await client.close();
  });

  it('honours a rotation from the next request on a connection whose token was let in before', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const kept = await rotateToken(root, 'kept');
      // Let in (a GET without a session is a 400 that comes after the token check), twice.
      expect(await getOver(agent, served.url, kept.token)).toEqual({ status: 400, reused: false });
      expect(await getOver(agent, served.url, kept.token)).toEqual({ status: 400, reused: true });
      await rotateToken(root, 'kept');
      expect(await getOver(agent, served.url, kept.token)).toEqual({ status: 401, reused: true });
    } finally {
      agent.destroy();
    }
  });
});

describe('allowUnauthenticated', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'toolhost-open-'));
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('is refused on an address other machines can reach, before anything listens', async () => {
    const host = await createHost({ root, watch: false, builtins: false });
    try {
      await expect(
        serveHttp(host, { hostname: '0.0.0.0', auth: { allowUnauthenticated: true } }),
      ).rejects.toThrow(/loopback address only, and 0\.0\.0\.0 can be reached from other machines/);
    } finally {
      await host.close();
    }
  });

  it('serves a loopback address without a token, and says so', async () => {
    const host = await createHost({ root, watch: false, builtins: false });
    const served = await serveHttp(host, { auth: { allowUnauthenticated: true } });
    try {
      expect(served.token).toBeUndefined();
      expect(served.auth).toMatch(/NO AUTHENTICATION/);
      const client = await connect(served.url, undefined);
      await client.close();
    } finally {
      await served.close();
      await host.close();
    }
  });
});
