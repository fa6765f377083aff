import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { version } from '../../packages/host/dist/cli/version.js';
import { servedToolsFile, servedToolsKey } from '../../packages/host/dist/serve/early-stdio.js';
import { CLI, cleanEnv, project } from './cli.js';

/**
 * `toolhost serve` over stdio answers `initialize` and `tools/list` before its host is loaded,
 * from the list the last serve of the project sent; a list that changed since follows as
 * `list_changed`, and everything else is answered by the host once it is up.
 */

const MARKER = { name: 'kept_marker', description: 'Only in the kept list', inputSchema: { type: 'object' } };

/** Writes the kept list as a previous serve would have. */
async function keep(root: string, key: string, tools: readonly unknown[]) {
  await mkdir(path.dirname(servedToolsFile(root)), { recursive: true });
  await writeFile(servedToolsFile(root), JSON.stringify({ key, tools }));
}

async function connect(root: string) {
  const client = new Client({ name: 'early-test', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--no-node-snapshot', CLI, 'serve', '--root', root],
    env: cleanEnv() as Record<string, string>,
    stderr: 'pipe',
  });
  const responses = new Map<unknown, number>();
  await client.connect(transport);
  const inner = transport.onmessage;
  transport.onmessage = (message) => {
    if ('id' in message && !('method' in message))
      responses.set(message.id, (responses.get(message.id) ?? 0) + 1);
    inner?.(message);
  };
  return { client, responses };
}

describe('toolhost serve answers at once', () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  it('lists from the kept list before the host is up, then says the list changed and serves the real one', async () => {
    const { root, dispose } = await project(['healthy'], {});
    closers.push(dispose);
    const configFile = path.join(root, 'toolhost.config.json');
    await keep(root, servedToolsKey(version, configFile), [MARKER]);
    const { client } = await connect(root);
    closers.unshift(() => client.close());
    const changed = new Promise<void>((resolve) =>
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
    );
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['kept_marker']);
    await changed;
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('healthy_echo');
  });

  it('keeps what it served for the next start, answers initialize once, and calls run in the host', async () => {
    const { root, dispose } = await project(['healthy']);
    closers.push(dispose);
    const first = await connect(root);
    const listed = (await first.client.listTools()).tools;
    await first.client.close();

    const second = await connect(root);
    closers.unshift(() => second.client.close());
    expect((await second.client.listTools()).tools).toEqual(listed);
    const result = await second.client.callTool({ name: 'healthy_echo', arguments: { text: 'early' } });
    expect(result.content).toEqual([{ type: 'text', text: 'echo: early' }]);
    // The initialize the host replayed got no second answer (the SDK client's is id 0; counted
    // from after connect, so only a late one would show).
    expect(second.responses.get(0)).toBeUndefined();
  });

  it('does not answer from a list kept under another config', async () => {
    const { root, dispose } = await project(['healthy'], {});
    closers.push(dispose);
    const configFile = path.join(root, 'toolhost.config.json');
    await keep(root, servedToolsKey(version, configFile), [MARKER]);
    await writeFile(configFile, JSON.stringify({ tools: { deny: ['nothing_here'] } }));
    const { client } = await connect(root);
    closers.unshift(() => client.close());
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('kept_marker');
  });
});
