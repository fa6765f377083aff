import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createHost, type McpHttpServer, serveHttp, type ToolHost } from '@toolhost/host';
import { defineTool } from '@toolhost/plugin-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { rotateToken } from '../../packages/host/src/serve/auth/tokens.js';

/**
 * Principals: the caller the endpoint authenticated gets the overlay of the first `principals`
 * entry that fits it, in tools/list and at call time, over both revisions; approvals, allow-always
 * memory and the dashboard's events name it.
 */

const tool = (name: string) =>
  defineTool({
    name,
    description: `The ${name} tool`,
    input: z.object({}),
    execute: () => `${name} ran`,
  });

interface Who {
  readonly token: string;
  readonly version?: '2026-07-28';
  readonly approve?: 'allow-always' | 'allow-once';
}

async function connect(url: string, who: Who): Promise<Client> {
  const client = new Client(
    { name: 'person', version: '1.0.0' },
    {
      ...(who.version === undefined ? {} : { versionNegotiation: { mode: { pin: who.version } } }),
      capabilities: { elicitation: { form: {} } },
    },
  );
  client.setRequestHandler('elicitation/create', async () => ({
    action: 'accept',
    content: { decision: who.approve ?? 'allow-once' },
  }));
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${who.token}` } },
    }),
  );
  return client;
}

const names = async (client: Client) => (await client.listTools()).tools.map((t) => t.name).sort();

describe('principals and their overlays', () => {
  let root: string;
  let host: ToolHost;
  let served: McpHttpServer;
  let owner: string;
  let reader: string;
  let lister: string;
  const events: { principal?: string; tool: string; type: string; by?: string }[] = [];

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'toolhost-principals-'));
    reader = (await rotateToken(root, 'reader')).token;
    lister = (await rotateToken(root, 'lister-1')).token;
    owner = (await rotateToken(root, 'default')).token;
    host = await createHost({
      root,
      builtins: false,
      pluginsDir: false,
      configFile: false,
      customTools: [tool('notes_read'), tool('notes_write'), tool('deploy')],
      principals: {
        readers: {
          match: { token: 'reader*' },
          tools: { deny: ['notes_write'], approve: ['deploy'] },
          approvals: { mcpClients: ['person'] },
        },
        listers: { match: { token: 'lister-*' }, tools: { allow: ['notes_read'] } },
      },
    });
    host.approvals.on((event) =>
      events.push({
        type: event.type,
        tool: event.approval.tool,
        ...(event.approval.principal === undefined ? {} : { principal: event.approval.principal }),
        ...(event.type === 'decided' ? { by: event.by } : {}),
      }),
    );
    served = await serveHttp(host);
  });

  afterAll(async () => {
    await served.close();
    await host.close();
    await rm(root, { recursive: true, force: true });
  });

  it('tools/list shows each caller only what its overlay leaves, over 2025-11-25 and 2026-07-28', async () => {
    for (const version of [undefined, '2026-07-28'] as const) {
      const all = await connect(served.url, { token: owner, ...(version ? { version } : {}) });
      const read = await connect(served.url, { token: reader, ...(version ? { version } : {}) });
      const list = await connect(served.url, { token: lister, ...(version ? { version } : {}) });
      try {
        expect(await names(all), version).toEqual(['deploy', 'notes_read', 'notes_write']);
        expect(await names(read), version).toEqual(['deploy', 'notes_read']);
        expect(await names(list), version).toEqual(['notes_read']);
      } finally {
        await Promise.all([all.close(), read.close(), list.close()]);
      }
    }
  });

  it("refuses at call time what the caller's overlay takes away, naming the key", async () => {
    for (const version of [undefined, '2026-07-28'] as const) {
      const read = await connect(served.url, { token: reader, ...(version ? { version } : {}) });
      const list = await connect(served.url, { token: lister, ...(version ? { version } : {}) });
      const all = await connect(served.url, { token: owner, ...(version ? { version } : {}) });
      try {
        await expect(read.callTool({ name: 'notes_write', arguments: {} })).rejects.toThrow(
          /Tool "notes_write" is denied by policy: "notes_write" is not for token:reader: principals\.readers\.tools\.deny denies it/,
        );
        await expect(list.callTool({ name: 'deploy', arguments: {} })).rejects.toThrow(
          /"deploy" is not for token:lister-1: principals\.listers\.tools\.allow \[notes_read\] does not match it/,
        );
        expect((await all.callTool({ name: 'notes_write', arguments: {} })).content).toEqual([
          { type: 'text', text: 'notes_write ran' },
        ]);
      } finally {
        await Promise.all([read.close(), list.close(), all.close()]);
      }
    }
  });

  it("asks approval for the caller's own approve patterns, naming it, and remembers allow-always for it alone", async () => {
    events.length = 0;
    const read = await connect(served.url, { token: reader, approve: 'allow-always' });
    const all = await connect(served.url, { token: owner });
    try {
      expect((await read.callTool({ name: 'deploy', arguments: {} })).content).toEqual([
        { type: 'text', text: 'deploy ran' },
      ]);
      expect(events).toEqual([
        { type: 'requested', tool: 'deploy', principal: 'token:reader' },
        { type: 'decided', tool: 'deploy', principal: 'token:reader', by: 'mcp-client:person' },
      ]);
      // Remembered for this caller: asked no more.
      await read.callTool({ name: 'deploy', arguments: {} });
      expect(events.at(-1)).toEqual({
        type: 'decided',
        tool: 'deploy',
        principal: 'token:reader',
        by: 'remembered',
      });
      // The owner's calls need no approval at all: the pattern is the readers' only.
      events.length = 0;
      expect((await all.callTool({ name: 'deploy', arguments: {} })).content).toEqual([
        { type: 'text', text: 'deploy ran' },
      ]);
      expect(events).toEqual([]);
    } finally {
      await Promise.all([read.close(), all.close()]);
    }
  });

  it("a 2026 caller's approval state does not serve another caller", async () => {
    const post = (token: string, params: Record<string, unknown>) =>
      fetch(served.url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'deploy',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: {
            name: 'deploy',
            arguments: {},
            ...params,
            _meta: {
              'io.modelcontextprotocol/protocolVersion': '2026-07-28',
              'io.modelcontextprotocol/clientInfo': { name: 'person', version: '1' },
              'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
            },
          },
        }),
      }).then(async (r) => {
        const text = await r.text();
        const line = text.startsWith('{')
          ? text
          : (text.split('\n').find((l) => l.startsWith('data: ')) ?? '').slice(6);
        return JSON.parse(line) as { result: Record<string, unknown> };
      });
    // A second token the readers' entry fits: the same overlay, another principal.
    const other = (await rotateToken(root, 'reader2')).token;
    const first = await post(reader, {});
    expect(first.result.resultType).toBe('input_required');
    const answer = { approval: { action: 'accept', content: { decision: 'allow-once' } } };
    // The reader's state and answer, sent by the other: not taken as its approval; it is asked anew.
    const stolen = await post(other, { inputResponses: answer, requestState: first.result.requestState });
    expect(stolen.result.resultType).toBe('input_required');
    const own = await post(reader, { inputResponses: answer, requestState: first.result.requestState });
    expect(own.result.content).toEqual([{ type: 'text', text: 'deploy ran' }]);
  });
});
