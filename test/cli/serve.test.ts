import { readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, cleanEnv, project, startToolhost, withToken } from './cli.js';

const config = { builtins: false };

describe('toolhost serve (stdio)', () => {
  let root: string;
  let dispose: () => Promise<void>;
  let client: Client;
  let transport: StdioClientTransport;
  let stderr = '';

  beforeAll(async () => {
    ({ root, dispose } = await project(['healthy'], config));
    client = new Client({ name: 'cli-test', version: '1.0.0' });
    transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'serve', '--root', root],
      env: cleanEnv() as Record<string, string>,
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    // Anything but protocol on stdout would make the client fail to parse it.
    await client.connect(transport);
  });

  afterAll(async () => {
    await client.close();
    await dispose();
  });

  it('answers an MCP client: lists and calls tools; logs only to stderr', async () => {
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['healthy_echo']);
    const result = await client.callTool({ name: 'healthy_echo', arguments: { text: 'over stdio' } });
    expect(result).toMatchObject({ content: [{ type: 'text', text: 'echo: over stdio' }] });
    expect(stderr).toContain('serving 1 tools over MCP stdio (watching for changes)');
  });

  it('watches by default: a plugin edit sends tools/list_changed', async () => {
    const changed = new Promise<void>((resolve) =>
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
    );
    const file = path.join(root, 'plugins', 'healthy', 'index.ts');
    await writeFile(file, (await readFile(file, 'utf8')).replaceAll('healthy_echo', 'healthy_shout'));
    await changed;
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['healthy_shout']);
  });
});

describe('toolhost serve --http', () => {
  it('serves streamable HTTP on 127.0.0.1 with isolates in an executor process by default, without watching under --no-watch, and exits 0 on SIGTERM', async () => {
    const { root, dispose } = await project(['healthy'], config);
    const server = startToolhost(['serve', '--http', '0', '--no-watch', '--root', root]);
    try {
      // Over HTTP a restart of the serve process would end every session: no inline default here.
      const [, url] = await server.stderr.waitFor(
        /MCP streamable HTTP at (http:\/\/127\.0\.0\.1:\d+\/mcp) \(not watching\); plugin isolates in an executor process/,
      );
      const client = new Client({ name: 'cli-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url ?? ''), withToken(root)));
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['healthy_echo']);
      const result = await client.callTool({ name: 'healthy_echo', arguments: { text: 'over http' } });
      expect(result).toMatchObject({ content: [{ type: 'text', text: 'echo: over http' }] });
      await client.close();
      expect(server.stdout.text).toBe('');
    } finally {
      expect(await server.stop('SIGTERM')).toBe(0);
      await dispose();
    }
  });
});
