import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import {
  createHost,
  type McpHttpServer,
  type PendingApproval,
  serveHttp,
  type ToolHost,
} from '@toolhost/host';
import { defineTool } from '@toolhost/plugin-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { openEvents, raw } from './helpers.js';

/**
 * Issue 24, item 2: the dashboard's API answers only the page `toolhost dev` opened. The attacker
 * is any local process: a plain HTTP client that forges `Origin: http://127.0.0.1:<port>` (only a
 * browser cannot), and knows every route. It must not read a pending approval's input, answer
 * another client's approval, or run a gated tool and approve it itself. The page proves itself
 * with the per-run token of the address dev printed.
 */
const SECRET = 'sk-live-0123456789abcdef';
let ran = 0;
const deploy = defineTool({
  name: 'deploy',
  description: 'Deploys with a key',
  input: z.object({ env: z.string(), key: z.string() }),
  execute: ({ env }) => {
    ran += 1;
    return `deployed to ${env}`;
  },
});
const echo = defineTool({
  name: 'echo',
  description: 'Echoes its text',
  input: z.object({ text: z.string() }),
  execute: ({ text }) => `echo: ${text}`,
});

let host: ToolHost;
let served: McpHttpServer;
let base: string;
/** An MCP client a person approves for: its form stays open until `answerForm` is called. */
let person: Client;
let answerForm: (result: ElicitResult) => void = () => {};
let personCall: Promise<unknown>;
let pending: PendingApproval;

/** The token of the address `serveHttp` gives for the dashboard (what dev prints). */
const token = () => new URL(served.dashboardUrl ?? 'http://x/').searchParams.get('token') ?? '';
const forged = () => ({ origin: base, 'content-type': 'application/json' });

beforeAll(async () => {
  host = await createHost({
    builtins: false,
    pluginsDir: false,
    configFile: false,
    customTools: [deploy, echo],
    tools: { approve: ['deploy'] },
    approvals: { mcpClients: ['person-app'] },
  });
  served = await serveHttp(host, { auth: { allowUnauthenticated: true }, dashboard: {} });
  base = served.url.replace(/\/mcp$/, '');
  person = new Client({ name: 'person-app', version: '1' }, { capabilities: { elicitation: { form: {} } } });
  person.setRequestHandler(
    ElicitRequestSchema,
    () =>
      new Promise<ElicitResult>((resolve) => {
        answerForm = resolve;
      }),
  );
  await person.connect(new StreamableHTTPClientTransport(new URL(served.url)));
  const requested = new Promise<PendingApproval>((resolve) => {
    const off = host.on('approval', (event) => {
      if (event.type !== 'requested') return;
      off();
      resolve(event.approval);
    });
  });
  personCall = person.callTool({ name: 'deploy', arguments: { env: 'prod', key: SECRET } });
  pending = await requested;
}, 60_000);

afterAll(async () => {
  answerForm({ action: 'decline' });
  await personCall?.catch(() => {});
  await person?.close();
  await served?.close();
  await host?.close();
});

describe('a local process with a forged Origin and no token', () => {
  it('cannot read pending approvals, nor the state or the event stream that carry their input', async () => {
    for (const route of ['/api/approvals', '/api/state']) {
      const answer = await raw(`${base}${route}`, { headers: { origin: base } });
      expect(answer.status, route).toBe(401);
      expect(answer.body, route).not.toContain(SECRET);
      expect(JSON.parse(answer.body).error).toMatch(/open the dashboard address toolhost dev printed/);
      expect(answer.headers['www-authenticate']).toBe('Bearer realm="toolhost dev"');
    }
    const events = openEvents(`${base}/api/events`, { origin: base });
    const res = await events.opened;
    expect(res.statusCode).toBe(401);
    await events.closed();
    expect(events.events().map((e) => JSON.stringify(e))).not.toContainEqual(expect.stringContaining(SECRET));
  });

  it("cannot answer another client's approval: it stays pending and the tool does not run", async () => {
    const answer = await raw(`${base}/api/approvals/${pending.id}`, {
      method: 'POST',
      headers: forged(),
      body: JSON.stringify({ decision: 'allow-once' }),
    });
    expect(answer.status).toBe(401);
    expect(host.approvals.pending().map((a) => a.id)).toEqual([pending.id]);
    expect(ran).toBe(0);
  });

  it('cannot run a gated tool through /api/call to approve it itself: nothing is asked, nothing runs', async () => {
    const asked: string[] = [];
    const off = host.on('approval', (event) => asked.push(event.approval.tool));
    const answer = await raw(`${base}/api/call`, {
      method: 'POST',
      headers: forged(),
      body: JSON.stringify({ tool: 'deploy', input: { env: 'prod', key: 'k' } }),
    });
    off();
    expect(answer.status).toBe(401);
    expect(asked).toEqual([]);
    expect(ran).toBe(0);
  });

  it('with a wrong token (an earlier run of dev, a guess) is refused 403 saying the token changed', async () => {
    const wrong = `${token()}x`;
    const answer = await raw(`${base}/api/approvals`, {
      headers: { origin: base, authorization: `Bearer ${wrong}` },
    });
    expect(answer.status).toBe(403);
    expect(answer.body).not.toContain(SECRET);
    expect(JSON.parse(answer.body).error).toMatch(/each run of toolhost dev makes a new one/);
    const events = openEvents(`${base}/api/events?token=${wrong}`);
    expect((await events.opened).statusCode).toBe(403);
    events.close();
  });
});

describe('the page that holds the token', () => {
  it('gets the page and its files without it: the page must load to read the token from its address', async () => {
    expect((await raw(`${base}/`)).status).toBe(200);
    expect((await raw(`${base}/dashboard/app.js`)).status).toBe(200);
  });

  it('is given the address with a fresh token of 32 random bytes, different on every server', async () => {
    expect(served.dashboardUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}$/);
    const other = await serveHttp(host, { auth: { allowUnauthenticated: true }, dashboard: {} });
    try {
      expect(other.dashboardUrl).not.toBe(served.dashboardUrl);
      expect(new URL(other.dashboardUrl ?? '').searchParams.get('token')).not.toBe(token());
    } finally {
      await other.close();
    }
    const plain = await serveHttp(host, {
      auth: { allowUnauthenticated: true },
    });
    expect(plain.dashboardUrl).toBeUndefined();
    await plain.close();
  });

  it('reads approvals with the token as a Bearer header, and the event stream with it in ?token=', async () => {
    const answer = await raw(`${base}/api/approvals`, {
      headers: { origin: base, authorization: `Bearer ${token()}` },
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject([{ id: pending.id, input: { key: SECRET } }]);
    const events = openEvents(`${base}/api/events?token=${token()}`, { origin: base });
    expect((await events.opened).statusCode).toBe(200);
    await events.until((e) => e.type === 'approval' && e.approval?.id === pending.id);
    events.close();
    // The query is for EventSource, which cannot set headers; the other routes take only the header.
    const byQuery = await raw(`${base}/api/approvals?token=${token()}`, { headers: { origin: base } });
    expect(byQuery.status).toBe(401);
  });

  it('runs a tool and answers an approval with the token', async () => {
    const headers = { ...forged(), authorization: `Bearer ${token()}` };
    const call = await raw(`${base}/api/call`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ tool: 'echo', input: { text: 'hi' } }),
    });
    expect(JSON.parse(call.body)).toMatchObject({
      status: 'ok',
      result: { content: [{ text: 'echo: hi' }] },
    });
    const answer = await raw(`${base}/api/approvals/${pending.id}`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ decision: 'deny', reason: 'not today' }),
    });
    expect(JSON.parse(answer.body)).toEqual({ answered: true });
    expect(await personCall).toMatchObject({ isError: true });
    expect(ran).toBe(0);
  });
});
