import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createHost, type McpHttpServer, serveHttp, type ToolHost } from '@toolhost/host';
import { defineTool } from '@toolhost/plugin-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';

/**
 * The audit trail of a served endpoint: one JSON line per call and per approval, naming who called
 * which tool with what outcome; no record holds a granted secret, a serve token or the state key.
 */

const SECRET = 'sk-live-0123456789abcdef';
const HEADER_SECRET = 'ghp_headerSecret987654';
const STATE_KEY = 'state-key-'.repeat(4);
const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('the audit trail', () => {
  let root: string;
  let host: ToolHost;
  let served: McpHttpServer;
  let client: Client;
  const trail = async () => {
    const dir = path.join(root, '.toolhost', 'audit');
    const [file] = await readdir(dir);
    const text = await readFile(path.join(dir, file ?? ''), 'utf8');
    return {
      text,
      records: text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    };
  };
  /** Writes the trail's batch now (records are gathered and written within 50 ms). */
  const settled = async () => served.flushAudit();

  beforeAll(async () => {
    process.env.AUDIT_TEST_SECRET = SECRET;
    root = await mkdtemp(path.join(tmpdir(), 'toolhost-audit-'));
    host = await createHost({
      root,
      builtins: false,
      pluginsDir: false,
      configFile: false,
      // A plugin granted the variable (the plugin need not exist for its grant to count as a secret).
      plugins: { weather: { grants: { env: ['AUDIT_TEST_SECRET'] } } },
      mcpServers: {
        gh: { url: 'http://127.0.0.1:9/mcp', headers: { Authorization: `Bearer ${HEADER_SECRET}` } },
      },
      serve: { requestStateKey: STATE_KEY },
      tools: { approve: ['deploy'] },
      approvals: { mcpClients: ['auditor'] },
      customTools: [
        defineTool({
          name: 'echo',
          description: 'Echoes',
          input: z.object({ text: z.string(), password: z.string().optional() }),
          execute: ({ text }) => `echo: ${text}`,
        }),
        defineTool({
          name: 'deploy',
          description: 'Deploys',
          input: z.object({}),
          execute: () => 'deployed',
        }),
      ],
    });
    served = await serveHttp(host);
    client = new Client(
      { name: 'auditor', version: '1.0.0' },
      { capabilities: { elicitation: { form: {} } } },
    );
    client.setRequestHandler('elicitation/create', async () => ({
      action: 'accept',
      content: { decision: 'allow-once' },
    }));
    await client.connect(
      new StreamableHTTPClientTransport(new URL(served.url), {
        requestInit: { headers: { authorization: `Bearer ${served.token}` } },
      }),
    );
  });

  afterAll(async () => {
    await client.close();
    await served.close();
    await host.close();
    await rm(root, { recursive: true, force: true });
    delete process.env.AUDIT_TEST_SECRET;
  });

  it('records a call: who, client, session, tool, owner, input hash and redacted input, policy, status, duration, trace id', async () => {
    await client.callTool({
      name: 'echo',
      arguments: { text: `my key is ${SECRET} and ${HEADER_SECRET}`, password: 'hunter2' },
      _meta: { traceparent: TRACEPARENT },
    });
    await settled();
    const { records } = await trail();
    const call = records.find((r) => r.type === 'call' && r.tool === 'echo');
    expect(call).toMatchObject({
      v: 1,
      type: 'call',
      principal: 'token:default',
      client: 'auditor',
      session: (client.transport as StreamableHTTPClientTransport).sessionId,
      tool: 'echo',
      owner: 'custom',
      input: { text: 'my key is [redacted] and [redacted]', password: '[redacted]' },
      policy: 'allowed',
      status: 'ok',
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    });
    expect(call?.inputHash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(typeof call?.durationMs).toBe('number');
    expect(Date.parse(call?.time as string)).not.toBeNaN();
  });

  it('records a refused call with what policy said', async () => {
    await expect(client.callTool({ name: 'nope', arguments: { token: SECRET } })).rejects.toThrow(
      /Unknown tool/,
    );
    await settled();
    const { records } = await trail();
    expect(records.find((r) => r.tool === 'nope')).toMatchObject({
      policy: 'unknown',
      status: 'refused',
      input: { token: '[redacted]' },
    });
  });

  it('records each approval and names its decision in the call record', async () => {
    await client.callTool({ name: 'deploy', arguments: {} });
    await settled();
    const { records } = await trail();
    const approvals = records.filter((r) => r.type === 'approval' && r.tool === 'deploy');
    expect(approvals.map((r) => r.phase)).toEqual(['requested', 'decided']);
    expect(approvals[1]).toMatchObject({
      principal: 'token:default',
      decision: 'allow-once',
      by: 'mcp-client:auditor',
      source: 'config',
      pattern: 'deploy',
    });
    expect(records.find((r) => r.type === 'call' && r.tool === 'deploy')).toMatchObject({
      status: 'ok',
      approval: { decision: 'allow-once', by: 'mcp-client:auditor' },
    });
  });

  it('holds no granted secret, serve token or state key anywhere, hashes included', async () => {
    const { text, records } = await trail();
    expect(records.length).toBeGreaterThan(3);
    for (const secret of [SECRET, HEADER_SECRET, STATE_KEY, served.token ?? 'x'])
      expect(text).not.toContain(secret);
    // The hash is of the input with the secrets cut out: the same text with another secret hashes alike.
    const echo = records.find((r) => r.tool === 'echo');
    expect(echo?.inputHash).not.toBe(records.find((r) => r.tool === 'nope')?.inputHash);
  });

  it('makes the trail file 0600, one per machine and port', async () => {
    const dir = path.join(root, '.toolhost', 'audit');
    const [file] = await readdir(dir);
    expect(file).toMatch(new RegExp(`-${served.port}\\.jsonl$`));
    const { mode } = await (await import('node:fs/promises')).stat(path.join(dir, file ?? ''));
    expect(mode & 0o777).toBe(0o600);
  });
});
