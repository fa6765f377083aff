import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createHost, type McpHttpServer, serveHttp, type ToolHost } from '@toolhost/host';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListJson } from '../../packages/host/src/cli/types.js';
import { FIXTURES, project, toolhost } from './cli.js';

/**
 * A project with built-ins (core), a plugin and a bridged MCP server (host B, served over HTTP):
 * list and doctor show each tool's executor kind. Channel tools live only in a channel session,
 * so the CLI's host-wide view has none (test/channel covers them over MCP).
 */
describe('list and doctor show the executor kinds side by side', () => {
  let rootB: string;
  let hostB: ToolHost;
  let served: McpHttpServer;
  let root: string;
  let dispose: () => Promise<void>;

  beforeAll(async () => {
    rootB = await mkdtemp(path.join(tmpdir(), 'toolhost-kinds-b-'));
    await cp(path.join(FIXTURES, 'healthy'), path.join(rootB, 'plugins', 'healthy'), { recursive: true });
    hostB = await createHost({
      root: rootB,
      builtins: false,
      sandbox: 'inline',
      cache: false,
      configFile: false,
    });
    served = await serveHttp(hostB, {
      auth: { allowUnauthenticated: true },
    });
    ({ root, dispose } = await project(['healthy'], {
      mcpServers: { b: { url: served.url, net: [new URL(served.url).host] } },
    }));
  });
  afterAll(async () => {
    await dispose();
    await served.close();
    await hostB.close();
    await rm(rootB, { recursive: true, force: true });
  });

  it('list --json gives each visible tool its kind; the table has a kind column', async () => {
    const { code, stdout } = await toolhost(['list', '--json', '--root', root]);
    expect(code).toBe(0);
    const json = JSON.parse(stdout) as ListJson;
    const kinds = Object.fromEntries(json.visible.map((t) => [t.name, t.kind]));
    expect(kinds).toMatchObject({ read: 'core', healthy_echo: 'plugin', mcp__b__healthy_echo: 'mcp' });
    const table = await toolhost(['list', '--root', root]);
    expect(table.stdout).toMatch(/^ {2}mcp__b__healthy_echo +mcp +mcp:b +mcp:b:healthy_echo +/m);
  });

  it('doctor counts the visible tools of each kind', async () => {
    const { stdout } = await toolhost(['doctor', '--root', root], { cwd: root });
    expect(stdout).toMatch(
      /tools: 7 visible: 5 core, 1 plugin, 0 channel, 1 mcp \(channel tools live in channel sessions only\)/,
    );
  });
});
