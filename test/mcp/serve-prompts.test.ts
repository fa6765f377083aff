import { Client as ClientV2, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { createHost, type McpHttpServer, type McpPrompt, serveHttp, type ToolHost } from '@toolhost/host';
import { createMcpServer } from '@toolhost/host/internal';
import { defineTool } from '@toolhost/plugin-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';

/**
 * Prompts an embedding serves through McpServeOptions.prompts: listed, and their ctx.ask sent to
 * a 2025-11-25 client as a request, and to a 2026-07-28 client as input_required rounds (the
 * prompt runs again with the answer); a form only to a client approvals.mcpClients lists.
 */

const runs: string[] = [];
const greet: McpPrompt = {
  name: 'greet',
  description: 'Greets someone in a tone the person picks',
  arguments: [{ name: 'who', description: 'Whom to greet', required: true }],
  get: async ({ who }, ctx) => {
    runs.push(String(who));
    const answer = await ctx.elicit(
      {
        message: 'Which tone?',
        requestedSchema: { type: 'object', properties: { tone: { type: 'string' } }, required: ['tone'] },
      },
      'tone',
    );
    return {
      messages: [
        { role: 'user', content: { type: 'text', text: `Greet ${who}, ${String(answer.content?.tone)}` } },
      ],
    };
  },
};
/** A raw 2026-07-28 request, as a client sends it (envelope and headers). */
async function raw(url: string, method: string, params: Record<string, unknown>) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      'mcp-name': String(params.name),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'person-app', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
        },
      },
    }),
  });
  const text = await response.text();
  const line = text.startsWith('{')
    ? text
    : (text.split('\n').find((l) => l.startsWith('data: ')) ?? '').slice(6);
  return JSON.parse(line) as { result?: Record<string, unknown>; error?: { code: number; message: string } };
}

const textOf = (result: { messages: { content: unknown }[] }) =>
  (result.messages[0]?.content as { text?: string } | undefined)?.text;

describe('prompts of the embedding over MCP', () => {
  let host: ToolHost;
  let served: McpHttpServer;

  beforeAll(async () => {
    host = await createHost({
      builtins: false,
      pluginsDir: false,
      configFile: false,
      approvals: { mcpClients: ['person-app'] },
      // A tool of the prompt's name: a prompt's state must not continue it.
      customTools: [
        defineTool({ name: 'greet', description: 'Greets', input: z.object({}), execute: () => 'hi' }),
      ],
    });
    served = await serveHttp(host, { auth: { allowUnauthenticated: true }, prompts: [greet] });
  });

  afterAll(async () => {
    await served?.close();
    await host?.close();
  });

  function modernClient(name: string, asked: string[]) {
    const client = new ClientV2(
      { name, version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { elicitation: { form: {} } } },
    );
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push((request.params as { message: string }).message);
      return { action: 'accept' as const, content: { tone: 'warmly' } };
    });
    return client;
  }

  it('2026-07-28: lists the prompt, asks through input_required and runs it again with the answer', async () => {
    runs.length = 0;
    const asked: string[] = [];
    const client = modernClient('person-app', asked);
    await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['greet']);
    expect(prompts[0]?.arguments).toEqual([{ name: 'who', description: 'Whom to greet', required: true }]);
    const result = await client.getPrompt({ name: 'greet', arguments: { who: 'Ada' } });
    expect(textOf(result)).toBe('Greet Ada, warmly');
    expect(asked).toEqual(['Which tone?']);
    expect(runs).toEqual(['Ada', 'Ada']);
    await client.close();
  });

  it('2026-07-28: an unknown prompt and a missing required argument are refused, saying which', async () => {
    const client = modernClient('person-app', []);
    await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
    await expect(client.getPrompt({ name: 'nope' })).rejects.toThrow(
      'no prompt named "nope"; this server serves the prompts "greet"',
    );
    await expect(client.getPrompt({ name: 'greet' })).rejects.toThrow(
      'prompt "greet" needs the argument "who"',
    );
    await client.close();
  });

  it('2026-07-28: sends no form to a client approvals.mcpClients does not list, and says so', async () => {
    const asked: string[] = [];
    const client = modernClient('other-app', asked);
    await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
    await expect(client.getPrompt({ name: 'greet', arguments: { who: 'Ada' } })).rejects.toThrow(
      'the MCP client "other-app" is not listed in approvals.mcpClients',
    );
    expect(asked).toEqual([]);
    await client.close();
  });

  it("2026-07-28: a prompt round's requestState does not continue a tools/call, even of its name", async () => {
    const round = await raw(served.url, 'prompts/get', { name: 'greet', arguments: { who: 'Ada' } });
    expect(round.result?.resultType).toBe('input_required');
    const requestState = round.result?.requestState;
    expect(typeof requestState).toBe('string');
    const replayed = await raw(served.url, 'tools/call', { name: 'greet', arguments: {}, requestState });
    expect(replayed.error?.code).toBe(-32602);
    const again = await raw(served.url, 'prompts/get', {
      name: 'greet',
      arguments: { who: 'Ada' },
      requestState,
      inputResponses: { tone: { action: 'accept', content: { tone: 'gently' } } },
    });
    expect(again.result?.messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Greet Ada, gently' } },
    ]);
  });

  it('2025-11-25: asks the client on the request and answers with the prompt', async () => {
    runs.length = 0;
    const { server, dispose } = createMcpServer(host, { prompts: [greet] });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client(
      { name: 'person-app', version: '1.0.0' },
      { capabilities: { elicitation: {} } },
    );
    client.setRequestHandler(ElicitRequestSchema, async () => ({
      action: 'accept',
      content: { tone: 'briskly' },
    }));
    await client.connect(clientSide);
    expect(client.getServerCapabilities()?.prompts).toEqual({});
    const result = await client.getPrompt({ name: 'greet', arguments: { who: 'Bo' } });
    expect(textOf(result)).toBe('Greet Bo, briskly');
    expect(runs).toEqual(['Bo']);
    dispose();
    await client.close();
  });
});
