import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHost, type ToolHost } from '@toolhost/host';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectInMemory } from './in-memory-client.js';

/**
 * The bridge keeps what servers send: a tool's icons and `_meta`, a result's `_meta`, and the
 * ui:// resource an MCP Apps tool points at, read through toolhost from the server that owns it.
 */

const here = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(here, '../..');
const SERVER = path.join(REPO, 'test/fixtures/servers/apps-server.mjs');
const SDK = path.join(REPO, 'node_modules/@modelcontextprotocol/sdk');
const WIDGET = 'ui://weather/card.html';

describe('an MCP Apps tool through the bridge', () => {
  let host: ToolHost;

  beforeAll(async () => {
    host = await createHost({
      builtins: false,
      pluginsDir: false,
      configFile: false,
      mcpServers: { apps: { command: process.execPath, args: [SERVER, SDK], sandbox: false } },
    });
  });
  afterAll(() => host?.close());

  it("lists the tool with its icons and _meta (beside toolhost's own key)", async () => {
    const { client, close } = await connectInMemory(host, 'apps-client');
    const { tools } = await client.listTools();
    expect(tools).toEqual([
      expect.objectContaining({
        name: 'mcp__apps__forecast',
        icons: [{ src: 'https://example.com/sun.png', mimeType: 'image/png', sizes: ['48x48'] }],
        _meta: { ui: { resourceUri: WIDGET }, 'example/flag': true, 'toolhost/executor': 'mcp' },
      }),
    ]);
    await close();
  });

  it("keeps the result's _meta", async () => {
    const { client, close } = await connectInMemory(host, 'apps-client');
    const result = await client.callTool({ name: 'mcp__apps__forecast', arguments: {} });
    expect(result).toMatchObject({
      content: [{ type: 'text', text: 'sunny' }],
      structuredContent: { sky: 'clear' },
      _meta: { 'example/render': 'card' },
    });
    await close();
  });

  it('reads the ui:// resource the tool points at from its server, and no other', async () => {
    const { client, close } = await connectInMemory(host, 'apps-client');
    const read = await client.readResource({ uri: WIDGET });
    expect(read.contents).toEqual([
      { uri: WIDGET, mimeType: 'text/html;profile=mcp-app', text: '<div>card</div>' },
    ]);
    await expect(client.readResource({ uri: 'ui://weather/other.html' })).rejects.toThrow(
      /no visible tool of this session points at "ui:\/\/weather\/other.html"/,
    );
    await close();
  });
});
