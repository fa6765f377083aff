import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHost, type HostChange, type McpHttpServer, serveHttp, type ToolHost } from '@toolhost/host';
import { internalsOf } from '@toolhost/host/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const fixture = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/plugins/healthy');

function nextChange(host: ToolHost, test: (c: HostChange) => boolean): Promise<HostChange> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no matching change within 60 s')), 60_000);
    const stop = host.on('change', (change) => {
      if (!test(change)) return;
      clearTimeout(timer);
      stop();
      resolve(change);
    });
  });
}

describe('host A bridges host B served over HTTP', () => {
  let rootB: string;
  let rootA: string;
  let hostB: ToolHost;
  let served: McpHttpServer;
  let hostA: ToolHost;

  beforeAll(async () => {
    rootB = await mkdtemp(path.join(tmpdir(), 'toolhost-b-'));
    await cp(fixture, path.join(rootB, 'plugins', 'healthy'), { recursive: true });
    hostB = await createHost({
      root: rootB,
      builtins: false,
      watch: true,
      sandbox: 'inline',
      cache: false,
    });
    served = await serveHttp(hostB, {
      auth: { allowUnauthenticated: true },
    });
    rootA = await mkdtemp(path.join(tmpdir(), 'toolhost-a-'));
    hostA = await createHost({
      root: rootA,
      builtins: false,
      pluginsDir: false,
      configFile: false,
      // B is on loopback: A connects to it only because `net` names the address.
      mcpServers: { b: { url: served.url, net: [new URL(served.url).host] } },
    });
  });

  afterAll(async () => {
    await hostA.close();
    await served.close();
    await hostB.close();
    await rm(rootA, { recursive: true, force: true });
    await rm(rootB, { recursive: true, force: true });
  });

  it("calls B's sandboxed plugin through A", async () => {
    expect(hostA.plan().visible.map((v) => v.descriptor.name)).toEqual(['mcp__b__healthy_echo']);
    const outcome = await hostA.session().call('mcp__b__healthy_echo', { text: 'via A' });
    expect(outcome.result.content).toEqual([{ type: 'text', text: 'echo: via A' }]);
    expect(internalsOf(hostA).registry.tools.get('mcp__b__healthy_echo')?.descriptor.owner).toEqual({
      kind: 'mcp',
      serverId: 'b',
    });
  });

  it("shows a plugin edit in B in A's plan without restarting either", async () => {
    const appeared = nextChange(hostA, (c) => c.added.includes('mcp__b__healthy_shout'));
    const source = await readFile(path.join(fixture, 'index.ts'), 'utf8');
    await writeFile(
      path.join(rootB, 'plugins', 'healthy', 'index.ts'),
      source.replaceAll('healthy_echo', 'healthy_shout'),
    );
    const change = await appeared;
    expect(change.removed).toContain('mcp__b__healthy_echo');
    expect(hostA.plan().visible.map((v) => v.descriptor.name)).toEqual(['mcp__b__healthy_shout']);
    const outcome = await hostA.session().call('mcp__b__healthy_shout', { text: 'new' });
    expect(outcome.result.content).toEqual([{ type: 'text', text: 'echo: new' }]);
  });
});

describe('mcpServers on hot reload', () => {
  it('connects an added entry and drops a removed one without a restart', async () => {
    const rootB = await mkdtemp(path.join(tmpdir(), 'toolhost-b2-'));
    await cp(fixture, path.join(rootB, 'plugins', 'healthy'), { recursive: true });
    const hostB = await createHost({
      root: rootB,
      builtins: false,
      sandbox: 'inline',
      cache: false,
    });
    const served = await serveHttp(hostB, {
      auth: { allowUnauthenticated: true },
    });
    const rootA = await mkdtemp(path.join(tmpdir(), 'toolhost-a2-'));
    const configFile = path.join(rootA, 'toolhost.config.json');
    await writeFile(configFile, '{}');
    const hostA = await createHost({ root: rootA, builtins: false, pluginsDir: false, watch: true });
    try {
      const added = nextChange(hostA, (c) => c.added.includes('mcp__b__healthy_echo'));
      await writeFile(
        configFile,
        JSON.stringify({ mcpServers: { b: { url: served.url, net: [new URL(served.url).host] } } }),
      );
      expect((await added).cause).toContain('config');
      expect(hostA.mcpServers).toEqual([
        expect.objectContaining({ name: 'b', state: 'connected', tools: 1 }),
      ]);
      const removed = nextChange(hostA, (c) => c.removed.includes('mcp__b__healthy_echo'));
      await writeFile(configFile, '{}');
      await removed;
      expect(hostA.plan().visible).toEqual([]);
    } finally {
      await hostA.close();
      await served.close();
      await hostB.close();
      await rm(rootA, { recursive: true, force: true });
      await rm(rootB, { recursive: true, force: true });
    }
  });
});

describe('the per-call timeout of bridged servers, from config', () => {
  it('ends a call the server does not answer in time with an is_error naming the server', async () => {
    const require = createRequire(import.meta.url);
    const manifest = require.resolve('@modelcontextprotocol/server-everything/package.json');
    const bin = path.join(
      path.dirname(manifest),
      (require(manifest) as { bin: Record<string, string> }).bin['mcp-server-everything'] ?? '',
    );
    const root = await mkdtemp(path.join(tmpdir(), 'toolhost-timeout-'));
    const host = await createHost({
      root,
      builtins: false,
      pluginsDir: false,
      configFile: false,
      limits: { mcpCallTimeoutMs: 300 },
      // Jailed (the default), it is granted the node_modules folder its code is in.
      mcpServers: {
        everything: {
          command: process.execPath,
          args: [bin],
          sandbox: { fs: { read: [path.resolve(path.dirname(manifest), '../..')] } },
        },
      },
    });
    try {
      const outcome = await host
        .session()
        .call('mcp__everything__trigger-long-running-operation', { duration: 5, steps: 1 });
      expect(outcome.result.isError).toBe(true);
      expect(outcome.result.content).toEqual([
        { type: 'text', text: expect.stringMatching(/MCP server "everything" did not answer within 300 ms/) },
      ]);
    } finally {
      await host.close();
      await rm(root, { recursive: true, force: true });
    }
  });
});
