import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client as ClientV2, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { createHost, type McpHttpServer, serveHttp, type ToolHost } from '@toolhost/host';
import { createMcpServer } from '@toolhost/host/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * A plugin's ctx.ask / ctx.elicit over MCP, with the plugin in the executor process: sent to a
 * 2025-11-25 client as requests on the call's stream, and to a 2026-07-28 client as
 * input_required rounds; a form only to a client approvals.mcpClients lists.
 */

const here = path.dirname(fileURLToPath(import.meta.url));
const fixture = path.resolve(here, '../fixtures/plugins/conformance');
const text = (result: unknown) => ((result as { content: unknown }).content as { text: string }[])[0]?.text;

describe("a plugin's ctx.ask over MCP", () => {
  let root: string;
  let host: ToolHost;
  let served: McpHttpServer;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'toolhost-ask-'));
    await cp(fixture, path.join(root, 'plugins', 'conformance'), { recursive: true });
    host = await createHost({
      root,
      builtins: false,
      configFile: false,
      cache: false,
      sandbox: 'process',
      approvals: { mcpClients: ['person-app'] },
    });
    served = await serveHttp(host, { auth: { allowUnauthenticated: true } });
  });

  afterAll(async () => {
    await served?.close();
    await host?.close();
    await rm(root, { recursive: true, force: true });
  });

  /** A 2025-11-25 client (the SDK's v1) over one in-memory MCP connection of `host`. */
  async function legacyClient(name: string) {
    const { server, dispose } = createMcpServer(host);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client(
      { name, version: '1.0.0' },
      { capabilities: { elicitation: { form: {} }, sampling: {}, roots: {} } },
    );
    client.setRequestHandler(ElicitRequestSchema, async () => ({
      action: 'accept',
      content: { name: 'Ada' },
    }));
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({
      role: 'assistant',
      content: { type: 'text', text: 'Bonjour' },
      model: 'test-model',
    }));
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///work' }] }));
    await client.connect(clientSide);
    return {
      client,
      close: async () => {
        dispose();
        await client.close();
      },
    };
  }

  it('2025-11-25: asks a listed client for a form, a completion and its roots at once', async () => {
    const { client, close } = await legacyClient('person-app');
    const result = await client.callTool({
      name: 'test_input_required_result_multiple_inputs',
      arguments: {},
    });
    expect(text(result)).toBe('Bonjour Ada; roots: file:///work');
    await close();
  });

  it('2025-11-25: sends no form to a client approvals.mcpClients does not list, and says so', async () => {
    const { client, close } = await legacyClient('other-app');
    const result = await client.callTool({ name: 'test_input_required_result_elicitation', arguments: {} });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain(
      'ctx.ask: the MCP client "other-app" is not listed in approvals.mcpClients',
    );
    await close();
  });

  it('2026-07-28: asks one question per round and finishes with both answers', async () => {
    const asked: string[] = [];
    const client = new ClientV2(
      { name: 'person-app', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { elicitation: { form: {} } } },
    );
    client.setRequestHandler('elicitation/create', async (request) => {
      const message = (request.params as { message: string }).message;
      asked.push(message);
      const content: Record<string, string> = message.startsWith('Step 1')
        ? { name: 'Ada' }
        : { color: 'blue' };
      return {
        action: 'accept' as const,
        content,
      };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
    const result = await client.callTool({ name: 'test_input_required_result_multi_round', arguments: {} });
    expect(text(result)).toBe('Ada likes blue');
    expect(asked).toEqual(['Step 1: What is your name?', 'Step 2: What is your favorite color?']);
    await client.close();
  });

  it('a call through the host API has no client to ask: an is_error result says so', async () => {
    const outcome = await host.session().call('test_input_required_result_elicitation', {});
    expect(outcome.result.isError).toBe(true);
    expect(JSON.stringify(outcome.result.content)).toContain('ctx.ask: this call has no MCP client to ask');
  });
});
