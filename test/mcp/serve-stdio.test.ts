import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const here = path.dirname(fileURLToPath(import.meta.url));
const hostModule = path.resolve(here, '../../packages/host/dist/index.js');
const fixture = path.resolve(here, '../fixtures/plugins/healthy');

describe('toolhost served over MCP stdio', () => {
  let root: string;
  let client: Client;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'toolhost-stdio-'));
    await cp(fixture, path.join(root, 'plugins', 'healthy'), { recursive: true });
    // A real server process: stdout is protocol only, so the script logs nothing there.
    const script = `
      const { createHost, serveStdio } = await import(${JSON.stringify(hostModule)});
      const host = await createHost({ root: ${JSON.stringify(root)}, builtins: false, watch: true,
        sandbox: 'process', cache: false });
      const served = await serveStdio(host);
      await served.closed;
      await host.close();
    `;
    client = new Client({ name: 'stdio-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ['--input-type=module', '-e', script],
        stderr: 'inherit',
      }),
    );
  });

  afterAll(async () => {
    await client.close();
    await rm(root, { recursive: true, force: true });
  });

  it('lists and calls a sandboxed plugin tool', async () => {
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['healthy_echo']);
    const result = await client.callTool({ name: 'healthy_echo', arguments: { text: 'over stdio' } });
    expect(result.content).toEqual([{ type: 'text', text: 'echo: over stdio' }]);
  });

  it('sends tools/list_changed after a plugin edit, and lists the new tool', async () => {
    const changed = new Promise<void>((resolve) =>
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
    );
    const source = (await import('node:fs/promises')).readFile(path.join(fixture, 'index.ts'), 'utf8');
    await writeFile(
      path.join(root, 'plugins', 'healthy', 'index.ts'),
      (await source).replaceAll('healthy_echo', 'healthy_echo2'),
    );
    await changed;
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['healthy_echo2']);
  });
});
