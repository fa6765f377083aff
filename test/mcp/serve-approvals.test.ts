import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  CancelledNotificationSchema,
  type ElicitRequest,
  ElicitRequestSchema,
  type ElicitResult,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { type ApprovalEvent, createHost, type ToolHost, type ToolhostConfigInput } from '@toolhost/host';
import { createMcpServer } from '@toolhost/host/internal';
import { defineTool } from '@toolhost/plugin-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';

let ran = 0;
const deploy = defineTool({
  name: 'deploy',
  description: 'Deploys to production',
  input: z.object({ env: z.string() }),
  execute: (input) => {
    ran += 1;
    return `deployed to ${input.env}`;
  },
});

let host: ToolHost | undefined;
let closeClient: (() => Promise<void>) | undefined;

afterEach(async () => {
  await closeClient?.();
  closeClient = undefined;
  await host?.close();
  host = undefined;
});

async function hostWith(config: ToolhostConfigInput = {}) {
  ran = 0;
  host = await createHost({
    pluginsDir: false,
    builtins: false,
    configFile: false,
    customTools: [deploy],
    tools: { approve: ['deploy'] },
    approvals: { mcpClients: ['approving-app'] },
    ...config,
  });
  return host;
}

/**
 * An SDK client over one MCP session of `h`; with `answer`, it declares form elicitation and
 * answers each `elicitation/create` with it.
 */
async function connect(
  h: ToolHost,
  name: string,
  answer?: (request: ElicitRequest, id: RequestId) => Promise<ElicitResult>,
  onCancelled?: (id: RequestId | undefined) => void,
) {
  const { server, dispose } = createMcpServer(h);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client(
    { name, version: '1.0.0' },
    answer === undefined ? {} : { capabilities: { elicitation: { form: {} } } },
  );
  if (answer !== undefined) {
    client.setRequestHandler(ElicitRequestSchema, (request, extra) => answer(request, extra.requestId));
  }
  if (onCancelled !== undefined) {
    // Seen here rather than through the handler's signal: SDK 1.32's client ignores a cancel of
    // request id 0 (`if (!requestId) return`), and the first elicitation has id 0.
    client.setNotificationHandler(CancelledNotificationSchema, (n) => onCancelled(n.params.requestId));
  }
  await client.connect(clientSide);
  closeClient = async () => {
    dispose();
    await client.close();
  };
  return client;
}

type CallResult = { isError?: boolean; content: { type: string; text?: string }[] };

const callDeploy = async (client: Client) =>
  (await client.callTool({ name: 'deploy', arguments: { env: 'prod' } })) as CallResult;

describe('approvals over MCP, by elicitation', () => {
  it('accept with allow-once: the form shows the call, and the tool runs', async () => {
    const h = await hostWith();
    const asked: ElicitRequest[] = [];
    const client = await connect(h, 'approving-app', async (request) => {
      asked.push(request);
      return { action: 'accept', content: { decision: 'allow-once' } };
    });
    const result = await callDeploy(client);
    expect(result.isError).toBeUndefined();
    expect(result.content).toEqual([{ type: 'text', text: 'deployed to prod' }]);
    expect(ran).toBe(1);
    const params = asked[0]?.params as { message: string; requestedSchema: { properties: object } };
    expect(params.message).toContain('deploy');
    expect(params.message).toContain('{"env":"prod"}');
    expect(params.requestedSchema.properties).toEqual({
      decision: {
        type: 'string',
        title: 'Decision',
        enum: ['allow-once', 'allow-always', 'deny'],
        default: 'deny',
      },
    });
  });

  it('decline: denied, the model told who declined; nothing runs', async () => {
    const h = await hostWith();
    const client = await connect(h, 'approving-app', async () => ({ action: 'decline' }));
    const result = await callDeploy(client);
    expect(result.isError).toBe(true);
    expect(result.content[0]?.text).toContain(
      'Tool "deploy" was not approved: denied by mcp-client:approving-app: declined',
    );
    expect(ran).toBe(0);
  });

  it('cancel: cancelled, refused; nothing runs', async () => {
    const h = await hostWith();
    const events: ApprovalEvent[] = [];
    h.on('approval', (event) => events.push(event));
    const client = await connect(h, 'approving-app', async () => ({ action: 'cancel' }));
    const result = await callDeploy(client);
    expect(result.isError).toBe(true);
    expect(result.content[0]?.text).toContain(
      'mcp-client:approving-app dismissed the request without deciding',
    );
    expect(events.at(-1)).toMatchObject({ decision: 'cancelled', by: 'mcp-client:approving-app' });
    expect(ran).toBe(0);
  });

  it('no reply before approvals.timeoutMs: timeout, and the elicitation request is aborted', async () => {
    const h = await hostWith({ approvals: { mcpClients: ['approving-app'], timeoutMs: 50 } });
    let asked: RequestId | undefined;
    let cancelled!: (id: RequestId | undefined) => void;
    const aborted = new Promise<RequestId | undefined>((resolve) => {
      cancelled = resolve;
    });
    const client = await connect(
      h,
      'approving-app',
      (_request, id) => {
        asked = id;
        return new Promise(() => {}); // a person who never answers
      },
      (id) => cancelled(id),
    );
    const result = await callDeploy(client);
    expect(result.isError).toBe(true);
    expect(result.content[0]?.text).toContain('nobody decided within 50 ms (approvals.timeoutMs)');
    expect(await aborted).toBe(asked); // the client was told to stop asking
    expect(ran).toBe(0);
  });

  it('a client without the elicitation capability: refused, naming tools.approve and the pattern', async () => {
    const h = await hostWith();
    const client = await connect(h, 'approving-app');
    const result = await callDeploy(client);
    expect(result.isError).toBe(true);
    const text = result.content[0]?.text ?? '';
    expect(text).toContain('did not declare the elicitation capability');
    expect(text).toContain('tools.approve pattern "deploy"');
    expect(text).toContain('remove "deploy" from tools.approve');
    expect(ran).toBe(0);
  });

  it('a client not listed in approvals.mcpClients is never asked, and the refusal says why', async () => {
    const h = await hostWith();
    let asked = 0;
    const client = await connect(h, 'self-approving-bot', async () => {
      asked += 1;
      return { action: 'accept', content: { decision: 'allow-once' } };
    });
    const result = await callDeploy(client);
    expect(result.isError).toBe(true);
    expect(result.content[0]?.text).toContain('"self-approving-bot" is not listed in approvals.mcpClients');
    expect(asked).toBe(0);
    expect(ran).toBe(0);
  });
});
