import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createHost, type McpHttpServer, serveHttp, type ToolHost } from '@toolhost/host';
import { defineTool } from '@toolhost/plugin-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { pluginSource, watchedProject } from '../reload/harness.js';
import { openEvents, raw } from './helpers.js';

/**
 * The dashboard's server side (issue 16): `/api/state`, `/api/call`, approvals, the page's files
 * and the Host/Origin/CSRF checks, against a real project: a loaded plugin, a failed one, a
 * disabled one and a bridged MCP server.
 */
let hostB: ToolHost;
let servedB: McpHttpServer;
let project: Awaited<ReturnType<typeof watchedProject>>;
let served: McpHttpServer;
let base: string;
let assets: string;
/** The page's proof, from the address serveHttp gives (dev prints it): every /api/ route wants it. */
let token: string;
let auth: Record<string, string>;

const echo = defineTool({
  name: 'echo',
  description: 'Echoes its text',
  input: z.object({ text: z.string() }),
  execute: ({ text }) => `echo: ${text}`,
});
const wipe = defineTool({
  name: 'wipe',
  description: 'Wipes a disk',
  input: z.object({ disk: z.string() }),
  requireApproval: { reason: 'erases data', severity: 'critical' },
  execute: ({ disk }) => `wiped ${disk}`,
});
const seen: unknown[] = [];

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  raw(`${base}${url}`, {
    method: 'POST',
    headers: { origin: base, 'content-type': 'application/json', ...auth, ...headers },
    body: JSON.stringify(body),
  });
const getJson = async (url: string) => {
  const answer = await raw(`${base}${url}`, { headers: auth });
  return { ...answer, json: JSON.parse(answer.body) };
};

beforeAll(async () => {
  hostB = await createHost({ builtins: false, pluginsDir: false, configFile: false, customTools: [echo] });
  servedB = await serveHttp(hostB, {
    auth: { allowUnauthenticated: true },
  });
  project = await watchedProject({
    customTools: [echo, wipe],
    hooks: [
      {
        name: 'spy',
        beforeToolCall: (event) => {
          seen.push({ tool: event.toolName, input: event.input });
          if (event.toolName === 'echo' && (event.input as { text: string }).text === 'forbidden') {
            return { block: true, reason: 'not that word' };
          }
          if (event.toolName === 'echo' && (event.input as { text: string }).text === 'shout') {
            return { input: { text: 'SHOUT' } };
          }
          return undefined;
        },
      },
    ],
  });
  await project.writePlugin(
    'good',
    pluginSource(
      'good',
      'good_tool',
      '"good"',
      `permissions: { net: ['api.example.com', 'other.example.com'] },`,
    ),
  );
  await project.writePlugin('broken', 'export default {;\n');
  await project.writePlugin('off', pluginSource('off', 'off_tool', '"off"'));
  await project.start({
    plugins: { off: { enabled: false }, good: { grants: { net: ['api.example.com'] } } },
    // B is on loopback: reached only because `net` names the address.
    mcpServers: { b: { url: servedB.url, net: [new URL(servedB.url).host] } },
  });
  assets = await mkdtemp(path.join(tmpdir(), 'toolhost-dash-assets-'));
  await writeFile(
    path.join(assets, 'index.html'),
    '<!doctype html><title>t</title><script type="module" src="/dashboard/app.js"></script>',
  );
  await writeFile(path.join(assets, 'app.js'), 'export {};\n');
  await writeFile(path.join(assets, 'style.css'), 'body{}\n');
  await mkdir(path.join(assets, 'lib'));
  await writeFile(path.join(assets, 'lib', 'form.js'), 'export const x = 1;\n');
  await writeFile(path.join(path.dirname(assets), 'secret.txt'), 'outside');
  served = await serveHttp(project.host, {
    auth: { allowUnauthenticated: true },
    dashboard: { assetsDir: assets },
  });
  base = served.url.replace(/\/mcp$/, '');
  token = new URL(served.dashboardUrl ?? '').searchParams.get('token') ?? '';
  auth = { authorization: `Bearer ${token}` };
}, 60_000);

afterAll(async () => {
  await served?.close();
  await project?.close();
  await servedB?.close();
  await hostB?.close();
  await rm(assets, { recursive: true, force: true });
});

describe('GET /api/state', () => {
  it('lists visible tools with owner, kind and deferral; hidden ones with their diagnostics', async () => {
    const { status, json } = await getJson('/api/state');
    expect(status).toBe(200);
    expect(json.version).toBe(project.host.version);
    expect(json.root).toBe(project.root);
    const byName = Object.fromEntries(json.tools.visible.map((t: { name: string }) => [t.name, t]));
    expect(byName.good_tool).toMatchObject({ owner: 'plugin:good', kind: 'plugin', deferred: false });
    expect(byName.good_tool.inputSchema).toMatchObject({ type: 'object' });
    expect(byName.echo).toMatchObject({ owner: 'custom', kind: 'core', description: 'Echoes its text' });
    expect(byName.mcp__b__echo).toMatchObject({ owner: 'mcp:b', kind: 'mcp' });
    const hidden = Object.fromEntries(json.tools.hidden.map((t: { name: string }) => [t.name, t]));
    expect(hidden.off_tool.diagnostics[0].reason).toBe('plugin-disabled');
  });

  it('gives each plugin its status, error with file:line, tools and permissions asked/granted/missing', async () => {
    const { json } = await getJson('/api/state');
    const plugins = Object.fromEntries(json.plugins.map((p: { id: string }) => [p.id, p]));
    expect(plugins.good).toMatchObject({ status: 'loaded', tools: ['good_tool'] });
    expect(plugins.good.error).toBeUndefined();
    expect(plugins.good.permissions).toEqual({
      asked: ['net "api.example.com"', 'net "other.example.com"'],
      granted: ['net "api.example.com"'],
      missing: [{ permission: 'net "other.example.com"', configKey: 'plugins.good.grants.net' }],
    });
    expect(plugins.broken.status).toBe('failed');
    expect(plugins.broken.error).toMatchObject({ line: 1 });
    // As esbuild names it: relative to the plugin's folder.
    expect(plugins.broken.error.file).toBe('index.ts');
    expect(plugins.broken.error.message).toMatch(/index\.ts:1:\d+/);
    expect(plugins.broken.error.column).toEqual(expect.any(Number));
    expect(plugins.off.status).toBe('disabled');
  });

  it('shows MCP servers, isolates, skills and pending approvals', async () => {
    const { json } = await getJson('/api/state');
    expect(json.mcpServers).toEqual([{ id: 'b', state: 'connected', tools: 1 }]);
    expect(json.isolates).toMatchObject({ live: expect.any(Number), maxLive: expect.any(Number) });
    // The memory of the process holding the isolates and of the host, in bytes.
    for (const memory of [json.isolates.memory, json.hostMemory]) {
      expect(memory.rss).toBeGreaterThan(memory.heapUsed);
      expect(memory.heapUsed).toBeGreaterThan(0);
    }
    expect(json.skills).toEqual([]);
    expect(json.approvals).toEqual([]);
  });
});

describe('POST /api/call (try a tool)', () => {
  it('runs the call through the full wrapper in a dashboard session: the hooks see it', async () => {
    seen.length = 0;
    const { status, body } = await post('/api/call', { tool: 'echo', input: { text: 'hi' } });
    expect(status).toBe(200);
    const answer = JSON.parse(body);
    expect(answer).toMatchObject({ status: 'ok', result: { content: [{ type: 'text', text: 'echo: hi' }] } });
    expect(answer.durationMs).toEqual(expect.any(Number));
    expect(seen).toEqual([{ tool: 'echo', input: { text: 'hi' } }]);
  });

  it("gives invalid input the wrapper's is_error result, and an unknown tool the call's", async () => {
    const invalid = JSON.parse((await post('/api/call', { tool: 'echo', input: { text: 3 } })).body);
    expect(invalid.status).toBe('invalid-input');
    expect(invalid.result.isError).toBe(true);
    expect(invalid.result.content[0].text).toMatch(/Invalid input for tool "echo"/);
    const unknown = await post('/api/call', { tool: 'nope', input: {} });
    expect(unknown.status).toBe(200);
    const result = JSON.parse(unknown.body).result;
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toMatch(/nope/);
  });

  it('refuses a body that is not JSON, not an object, without a tool, or not application/json', async () => {
    const notJson = await raw(`${base}/api/call`, {
      method: 'POST',
      headers: { origin: base, 'content-type': 'application/json', ...auth },
      body: '{',
    });
    expect(notJson.status).toBe(400);
    expect(JSON.parse(notJson.body).error).toMatch(/not JSON/);
    expect((await post('/api/call', [1])).status).toBe(400);
    const noTool = await post('/api/call', { input: {} });
    expect(JSON.parse(noTool.body).error).toMatch(/"tool"/);
    const text = await post('/api/call', { tool: 'echo' }, { 'content-type': 'text/plain' });
    expect(text.status).toBe(415);
  });
});

describe('approvals', () => {
  it('lists a pending approval and answers it by POST; the call then runs', async () => {
    const events = openEvents(`${base}/api/events?token=${token}`);
    await events.opened;
    const calling = post('/api/call', { tool: 'wipe', input: { disk: 'd1' } });
    const requested = await events.until((e) => e.type === 'approval' && e.phase === 'requested');
    const pending = (await getJson('/api/approvals')).json;
    expect(pending).toHaveLength(1);
    expect(pending[0]).toMatchObject({ tool: 'wipe', input: { disk: 'd1' }, severity: 'critical' });
    expect(requested.approval.id).toBe(pending[0].id);
    expect((await getJson('/api/state')).json.approvals).toHaveLength(1);
    const answer = await post(`/api/approvals/${pending[0].id}`, { decision: 'allow-once' });
    expect(JSON.parse(answer.body)).toEqual({ answered: true });
    const result = JSON.parse((await calling).body);
    expect(result).toMatchObject({ status: 'ok', result: { content: [{ text: 'wiped d1' }] } });
    const decided = await events.until((e) => e.type === 'approval' && e.phase === 'decided');
    expect(decided).toMatchObject({ decision: 'allow-once', by: 'dashboard' });
    const again = await post(`/api/approvals/${pending[0].id}`, { decision: 'deny' });
    expect(JSON.parse(again.body)).toEqual({ answered: false });
    events.close();
  });

  it('refuses a decision that is not one of the three', async () => {
    const answer = await post('/api/approvals/x', { decision: 'maybe' });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body).error).toMatch(/decision/);
  });
});

describe('the page and its files', () => {
  it('serves index.html at / and files of the assets folder, with CSP, nosniff and no-cache', async () => {
    const page = await raw(`${base}/`);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['content-security-policy']).toBe(
      "default-src 'self'; img-src 'self' data: blob:; media-src 'self' data: blob:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'",
    );
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.headers['cache-control']).toBe('no-cache');
    const js = await raw(`${base}/dashboard/app.js`);
    expect(js.headers['content-type']).toMatch(/^text\/javascript/);
    expect((await raw(`${base}/dashboard/style.css`)).headers['content-type']).toMatch(/^text\/css/);
    expect((await raw(`${base}/dashboard/lib/form.js`)).body).toBe('export const x = 1;\n');
    const state = await raw(`${base}/api/state`, { headers: auth });
    expect(state.headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
  });

  it('refuses path traversal and files that are not there', async () => {
    for (const bad of [
      '../secret.txt',
      '..%2fsecret.txt',
      '%2e%2e/secret.txt',
      '.hidden.js',
      'lib/../../secret.txt',
    ]) {
      const answer = await raw(`${base}/dashboard/${bad}`);
      expect([400, 404], bad).toContain(answer.status);
      expect(answer.body).not.toContain('outside');
      expect(JSON.parse(answer.body).error).toEqual(expect.any(String));
    }
    expect((await raw(`${base}/dashboard/missing.js`)).status).toBe(404);
    expect((await raw(`${base}/api/nothing`, { headers: auth })).status).toBe(404);
  });
});

describe('security: Host and Origin on every route, CSRF on POST', () => {
  const routes = ['/', '/dashboard/app.js', '/api/state', '/api/events', '/api/approvals'];

  it('refuses a foreign Origin on every route, GET and POST, with a JSON error naming it', async () => {
    for (const route of routes) {
      const answer = await raw(`${base}${route}`, { headers: { origin: 'http://evil.example' } });
      expect(answer.status, route).toBe(403);
      expect(JSON.parse(answer.body).error).toContain('http://evil.example');
    }
    const call = await post(
      '/api/call',
      { tool: 'echo', input: { text: 'x' } },
      { origin: 'http://evil.example' },
    );
    expect(call.status).toBe(403);
    expect(JSON.parse(call.body).error).toContain('Origin "http://evil.example"');
  });

  it('refuses a POST without Origin, and nothing runs', async () => {
    seen.length = 0;
    const answer = await raw(`${base}/api/call`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth },
      body: JSON.stringify({ tool: 'echo', input: { text: 'x' } }),
    });
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body).error).toMatch(/Origin/);
    expect(seen).toEqual([]);
    const approve = await raw(`${base}/api/approvals/x`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth },
      body: '{"decision":"deny"}',
    });
    expect(approve.status).toBe(403);
  });

  it('refuses a bad Host on the dashboard routes (DNS rebinding)', async () => {
    for (const route of routes) {
      const answer = await raw(`${base}${route}`, { headers: { host: 'evil.example' } });
      expect(answer.status, route).toBe(403);
      expect(JSON.parse(answer.body).error).toMatch(/Host "evil.example"/);
    }
  });

  it('serve --http without the dashboard option serves only /mcp', async () => {
    const plain = await serveHttp(project.host, {
      auth: { allowUnauthenticated: true },
    });
    try {
      expect((await raw(plain.url.replace(/\/mcp$/, '/'))).status).toBe(404);
      expect((await raw(plain.url.replace(/\/mcp$/, '/api/state'))).status).toBe(404);
    } finally {
      await plain.close();
    }
  });
});

describe('call events', () => {
  it('MCP calls and dashboard calls stream start and end, with the hook that blocked or rewrote', async () => {
    const events = openEvents(`${base}/api/events?token=${token}`);
    await events.opened;
    const client = new Client({ name: 'dash-test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
    try {
      await client.callTool({ name: 'echo', arguments: { text: 'forbidden' } });
      const blocked = await events.until((e) => e.type === 'call' && e.phase === 'end' && e.source === 'mcp');
      const start = events
        .events()
        .find((e) => e.type === 'call' && e.phase === 'start' && e.callId === blocked.callId);
      expect(start).toMatchObject({ source: 'mcp', tool: 'echo', input: { text: 'forbidden' } });
      expect(start?.sessionId).toBe(blocked.sessionId);
      expect(blocked).toMatchObject({ status: 'blocked', hooks: { blockedBy: 'spy' } });
      expect(blocked.result.isError).toBe(true);

      await post('/api/call', { tool: 'echo', input: { text: 'shout' } });
      const shout = await events.until((e) => e.phase === 'start' && e.input?.text === 'shout');
      expect(shout.source).toBe('dashboard');
      const rewritten = await events.until((e) => e.phase === 'end' && e.callId === shout.callId);
      expect(rewritten).toMatchObject({ status: 'ok', hooks: { rewroteBy: ['spy'] } });
      expect(rewritten.result.content[0].text).toBe('echo: SHOUT');
    } finally {
      await client.close();
      events.close();
    }
  });

  it('folds long inputs and results: strings cut with a count, big payloads as a preview', async () => {
    const events = openEvents(`${base}/api/events?token=${token}`);
    await events.opened;
    await post('/api/call', { tool: 'echo', input: { text: 'a'.repeat(5_000) } });
    const start = await events.until((e) => e.phase === 'start' && e.input?.text?.startsWith('aaa'));
    expect(start.input.text).toBe(`${'a'.repeat(2_000)}…(3000 more chars)`);
    const end = await events.until((e) => e.phase === 'end' && e.callId === start.callId);
    expect(end.result.content[0].text).toMatch(/…\(3006 more chars\)$/);
    const many = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}`, 'b'.repeat(1_500)]));
    await post('/api/call', { tool: 'echo', input: many });
    const big = await events.until(
      (e) => e.type === 'call' && e.phase === 'start' && e.input?.folded === true,
      'a folded input',
    );
    expect(big.input.chars).toBe(JSON.stringify(many).length);
    expect(big.input.preview).toBe(JSON.stringify(many).slice(0, 2_000));
    events.close();
  });
});
