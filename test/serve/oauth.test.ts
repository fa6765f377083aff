import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { createHost, type McpHttpServer, serveHttp, type ToolHost } from '@toolhost/host';
import { defineTool } from '@toolhost/plugin-sdk';
import Provider from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';

/**
 * The OAuth resource-server role against a real authorization server (oidc-provider, a certified
 * OpenID provider) started here: client-credentials JWT access tokens for a resource indicator.
 */

async function listen(server: HttpServer): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** An authorization server on loopback issuing JWT access tokens for any resource asked for. */
async function authorizationServer() {
  const http = createServer();
  const port = await listen(http);
  const issuer = `http://127.0.0.1:${port}`;
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...privateKey.export({ format: 'jwk' }), kid: 'test-key', use: 'sig', alg: 'RS256' };
  const client = (id: string) => ({
    client_id: id,
    client_secret: `${id}-secret`,
    grant_types: ['client_credentials'],
    redirect_uris: [],
    response_types: [],
  });
  const provider = new Provider(issuer, {
    clients: [client('agent'), client('admin-agent')],
    jwks: { keys: [jwk] },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        getResourceServerInfo: () => ({
          scope: 'tools:call other:read',
          accessTokenFormat: 'jwt',
          accessTokenTTL: 300,
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
    // A group claim for the principals test.
    extraTokenClaims: (_ctx, token) =>
      (token as { clientId?: string }).clientId === 'admin-agent' ? { groups: ['admins'] } : undefined,
  });
  http.on('request', provider.callback());
  const token = async (id: string, resource: string, scope: string): Promise<string> => {
    const response = await fetch(`${issuer}/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${id}:${id}-secret`).toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', resource, scope }),
    });
    const body = (await response.json()) as { access_token?: string; error_description?: string };
    if (body.access_token === undefined) throw new Error(`no token: ${JSON.stringify(body)}`);
    return body.access_token;
  };
  return { issuer, token, close: () => new Promise<void>((resolve) => http.close(() => resolve())) };
}

/** A bridged MCP server that records the Authorization header of every request it gets. */
async function recordingServer() {
  const seen: (string | undefined)[] = [];
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: 'upstream', version: '1.0.0' });
    server.registerTool('ping', { description: 'Pings' }, async () => ({
      content: [{ type: 'text', text: 'pong' }],
    }));
    return server;
  });
  const http = createServer(async (req, res) => {
    seen.push(req.headers.authorization);
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
  const port = await listen(http);
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    seen,
    close: async () => {
      await handler.close();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

describe('OAuth: toolhost as a resource server', () => {
  let as: Awaited<ReturnType<typeof authorizationServer>>;
  let upstream: Awaited<ReturnType<typeof recordingServer>>;
  let root: string;
  let host: ToolHost;
  let served: McpHttpServer;
  let resource: string;
  let clockSkewMs = 0;

  const connect = async (token: string) => {
    const client = new Client({ name: 'oauth-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(served.url), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    return client;
  };
  const initialize = (token?: string) =>
    fetch(served.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      }),
    });

  beforeAll(async () => {
    as = await authorizationServer();
    upstream = await recordingServer();
    root = await mkdtemp(path.join(tmpdir(), 'toolhost-oauth-'));
    // The port must be known for the resource URI: take one, then serve on it.
    const probe = createServer();
    const port = await listen(probe);
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    resource = `http://127.0.0.1:${port}/mcp`;
    host = await createHost({
      root,
      builtins: false,
      pluginsDir: false,
      configFile: false,
      mcpServers: { up: { url: upstream.url, net: [new URL(upstream.url).host] } },
      customTools: [
        defineTool({
          name: 'admin_reset',
          description: 'Resets',
          input: z.object({}),
          execute: () => 'reset',
        }),
      ],
      principals: {
        admins: { match: { claim: { name: 'groups', equals: 'admins' } } },
        others: { match: {}, tools: { deny: ['admin_*'] } },
      },
    });
    served = await serveHttp(host, {
      port,
      auth: {
        oauth: { issuer: as.issuer, resource, scopes: ['tools:call'] },
        now: () => Date.now() + clockSkewMs,
      },
    });
  });

  afterAll(async () => {
    await served?.close();
    await host?.close();
    await upstream?.close();
    await as?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('serves RFC 9728 metadata at the well-known path of /mcp, without a token', async () => {
    const response = await fetch(new URL('/.well-known/oauth-protected-resource/mcp', served.url));
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      resource,
      authorization_servers: [as.issuer],
      scopes_supported: ['tools:call'],
    });
  });

  it('answers a request without a token 401 with resource_metadata and scope in WWW-Authenticate', async () => {
    const response = await initialize();
    expect(response.status).toBe(401);
    const challenge = response.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(/^Bearer error="invalid_token"/);
    expect(challenge).toContain('scope="tools:call"');
    expect(challenge).toContain(
      `resource_metadata="http://127.0.0.1:${new URL(resource).port}/.well-known/oauth-protected-resource/mcp"`,
    );
  });

  it('takes an access token the authorization server issued for this server: lists and calls, as the client', async () => {
    const client = await connect(await as.token('agent', resource, 'tools:call'));
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['mcp__up__ping']);
      expect((await client.callTool({ name: 'mcp__up__ping', arguments: {} })).content).toEqual([
        { type: 'text', text: 'pong' },
      ]);
    } finally {
      await client.close();
    }
  });

  it("never passes the caller's token on to a bridged server", async () => {
    const token = await as.token('agent', resource, 'tools:call');
    const client = await connect(token);
    try {
      await client.callTool({ name: 'mcp__up__ping', arguments: {} });
    } finally {
      await client.close();
    }
    expect(upstream.seen.length).toBeGreaterThan(0);
    expect(upstream.seen.every((header) => header === undefined)).toBe(true);
  });

  it('refuses a token issued for another resource (audience), 401 naming serve.auth.oauth.resource', async () => {
    const other = await as.token('agent', 'https://elsewhere.example/mcp', 'tools:call');
    const response = await initialize(other);
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error_description: string }).error_description).toContain(
      `its audience does not include ${resource} (serve.auth.oauth.resource)`,
    );
  });

  it('refuses an expired token, and one signed by someone else', async () => {
    const token = await as.token('agent', resource, 'tools:call');
    clockSkewMs = 10 * 60_000;
    try {
      const late = await initialize(token);
      expect(late.status).toBe(401);
      expect(((await late.json()) as { error_description: string }).error_description).toBe(
        'the access token has expired',
      );
    } finally {
      clockSkewMs = 0;
    }
    const [head, body] = token.split('.');
    const forged = await initialize(
      `${head}.${body}.${Buffer.from('not the signature').toString('base64url')}`,
    );
    expect(forged.status).toBe(401);
  });

  it('answers a token without the required scope 403 insufficient_scope', async () => {
    const narrow = await as.token('agent', resource, 'other:read');
    const response = await initialize(narrow);
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toMatch(
      /^Bearer error="insufficient_scope".*scope="tools:call"/,
    );
  });

  it('maps a claim (a group) to a principal: the admins see admin tools, other clients do not', async () => {
    const admin = await connect(await as.token('admin-agent', resource, 'tools:call'));
    const agent = await connect(await as.token('agent', resource, 'tools:call'));
    try {
      expect((await admin.listTools()).tools.map((t) => t.name)).toEqual(['admin_reset', 'mcp__up__ping']);
      expect((await agent.listTools()).tools.map((t) => t.name)).toEqual(['mcp__up__ping']);
      await expect(agent.callTool({ name: 'admin_reset', arguments: {} })).rejects.toThrow(
        /is not for oauth:agent: principals\.others\.tools\.deny denies it/,
      );
    } finally {
      await Promise.all([admin.close(), agent.close()]);
    }
  });
});
