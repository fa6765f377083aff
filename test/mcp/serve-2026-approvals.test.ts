import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createHost, type McpHttpServer, serveHttp, type ToolHost } from '@toolhost/host';
import { defineTool } from '@toolhost/plugin-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { rawToolCall } from './raw-2026.js';

/**
 * Approvals for 2026-07-28 clients: an `input_required` result with a form, answered in the
 * retry; the sealed `requestState` cannot be altered, and another server process with the same
 * `serve.requestStateKey` continues the call.
 */

const KEY = 'k'.repeat(40);
const VERSION = '2026-07-28';

async function approvingHost(ran: string[]): Promise<ToolHost> {
  return createHost({
    builtins: false,
    pluginsDir: false,
    configFile: false,
    tools: { approve: ['deploy'] },
    approvals: { mcpClients: ['approver'] },
    serve: { requestStateKey: KEY },
    customTools: [
      defineTool({
        name: 'deploy',
        description: 'Deploys',
        input: z.object({ env: z.string() }),
        execute: ({ env }) => {
          ran.push(env);
          return `deployed ${env}`;
        },
      }),
    ],
  });
}

const rawCall = (url: string, id: number, params: Record<string, unknown>) =>
  rawToolCall(url, id, 'deploy', { env: 'prod' }, params);

describe('MCP 2026-07-28 approvals over input_required', () => {
  const ran: string[] = [];
  let hostA: ToolHost;
  let hostB: ToolHost;
  let a: McpHttpServer;
  let b: McpHttpServer;

  beforeAll(async () => {
    hostA = await approvingHost(ran);
    hostB = await approvingHost(ran);
    a = await serveHttp(hostA, {
      auth: { allowUnauthenticated: true },
    });
    b = await serveHttp(hostB, {
      auth: { allowUnauthenticated: true },
    });
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await hostA?.close();
    await hostB?.close();
  });

  it('asks the pinned SDK client with a form and runs the call once it is allowed', async () => {
    ran.length = 0;
    const asked: string[] = [];
    const client = new Client(
      { name: 'approver', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: VERSION } }, capabilities: { elicitation: { form: {} } } },
    );
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push((request.params as { message: string }).message);
      return { action: 'accept', content: { decision: 'allow-once' } };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(a.url)));
    const result = await client.callTool({ name: 'deploy', arguments: { env: 'staging' } });
    expect(result.content).toEqual([{ type: 'text', text: 'deployed staging' }]);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('Input: {"env":"staging"}');
    expect(ran).toEqual(['staging']);
    await client.close();
  });

  it('asks for a call through call_tool as for the direct call, naming the tool it runs', async () => {
    ran.length = 0;
    const asked: string[] = [];
    const client = new Client(
      { name: 'approver', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: VERSION } }, capabilities: { elicitation: { form: {} } } },
    );
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push((request.params as { message: string }).message);
      return { action: 'accept', content: { decision: 'allow-once' } };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(a.url)));
    const result = await client.callTool({
      name: 'call_tool',
      arguments: { name: 'deploy', arguments: { env: 'qa' } },
    });
    expect(result.content).toEqual([{ type: 'text', text: 'deployed qa' }]);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('deploy');
    expect(asked[0]).toContain('Input: {"env":"qa"}');
    expect(ran).toEqual(['qa']);
    await client.close();
  });

  it('does not run a declined call', async () => {
    ran.length = 0;
    const client = new Client(
      { name: 'approver', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: VERSION } }, capabilities: { elicitation: { form: {} } } },
    );
    client.setRequestHandler('elicitation/create', async () => ({ action: 'decline' }));
    await client.connect(new StreamableHTTPClientTransport(new URL(a.url)));
    const result = await client.callTool({ name: 'deploy', arguments: { env: 'prod' } });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/not approved/);
    expect(ran).toEqual([]);
    await client.close();
  });

  it('refuses a tampered requestState, and another server with the same key continues the call', async () => {
    ran.length = 0;
    const first = await rawCall(a.url, 1, {});
    expect(first.result?.resultType).toBe('input_required');
    const state = first.result?.requestState as string;
    expect(typeof state).toBe('string');
    const answer = { approval: { action: 'accept', content: { decision: 'allow-once' } } };
    const [head, body, mac] = state.split('.');
    const forged = Buffer.from(body as string, 'base64url')
      .toString()
      .replace(/"tool":"deploy"/, '"tool":"other"');
    const tampered = await rawCall(a.url, 2, {
      inputResponses: answer,
      requestState: `${head}.${Buffer.from(forged).toString('base64url')}.${mac}`,
    });
    expect(tampered.error?.code).toBe(-32602);
    expect(ran).toEqual([]);
    const continued = await rawCall(b.url, 3, { inputResponses: answer, requestState: state });
    expect(continued.result?.content).toEqual([{ type: 'text', text: 'deployed prod' }]);
    expect(ran).toEqual(['prod']);
  });
});
