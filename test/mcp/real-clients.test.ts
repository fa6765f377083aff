import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { MultiServerMCPClient } from '@langchain/mcp-adapters';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, cleanEnv, FIXTURES, REPO } from '../cli/cli.js';

/**
 * Real clients, as their users start toolhost: `toolhost serve` over stdio, spawned once per
 * client. Each lists and calls a plugin tool and a bridged tool, hears of a list change (a plugin
 * saved while it is connected), finds a deferred tool with tool_search and runs it through
 * call_tool, and receives a quick tool's progress (the bridged tool's and the deferred plugin
 * tool's). Clients: the SDK's v1 client, its v2 client pinned to 2026-07-28 and in auto mode,
 * and LangChain's MCP adapters (an agent framework's client, which caches its tool list).
 */

const SERVER = path.join(REPO, 'test/fixtures/servers/progress-server.mjs');
const SDK = path.join(REPO, 'node_modules/@modelcontextprotocol/sdk');
/** What a LangChain tool returned, as text (a string, content blocks or structured output). */
const said = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));
const text = (result: unknown) => ((result as { content: unknown }).content as { text: string }[])[0]?.text;

let root: string;
let late = 0;
const serveArgs = () => ['--no-node-snapshot', CLI, 'serve', '--root', root];

/** Saves a new plugin into the served project: the server rebuilds and says its list changed. */
async function savePlugin(): Promise<string> {
  late += 1;
  const id = `late${late}`;
  await mkdir(path.join(root, 'plugins', id), { recursive: true });
  await writeFile(
    path.join(root, 'plugins', id, 'index.ts'),
    `import { definePlugin, defineTool } from '@toolhost/plugin-sdk';
import * as z from 'zod';
export default definePlugin({ id: '${id}', tools: [defineTool({ name: '${id}_hi', description: 'Says hi', input: z.object({}), execute: () => 'hi' })] });
`,
  );
  return `${id}_hi`;
}

/** What every client must see of the list. */
function expectListed(names: readonly string[]) {
  expect(names).toEqual(
    expect.arrayContaining(['healthy_echo', 'mcp__quick__steps', 'tool_search', 'call_tool']),
  );
  expect(names).not.toContain('quick_steps'); // deferred
}

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'toolhost-clients-'));
  for (const plugin of ['healthy', 'quick-progress']) {
    await cp(path.join(FIXTURES, plugin), path.join(root, 'plugins', plugin), { recursive: true });
  }
  await writeFile(
    path.join(root, 'toolhost.config.json'),
    JSON.stringify({
      builtins: { enabled: false },
      tools: { defer: ['quick_steps'] },
      mcpServers: { quick: { command: process.execPath, args: [SERVER, SDK], sandbox: false } },
    }),
  );
});
afterAll(() => rm(root, { recursive: true, force: true }));

describe('real MCP clients against toolhost serve over stdio', () => {
  it('the SDK v1 client', { timeout: 60_000 }, async () => {
    const client = new ClientV1({ name: 'sdk-v1', version: '1.0.0' });
    await client.connect(
      new StdioV1({
        command: process.execPath,
        args: serveArgs(),
        env: cleanEnv() as Record<string, string>,
      }),
    );
    try {
      expectListed((await client.listTools()).tools.map((t) => t.name));
      expect(text(await client.callTool({ name: 'healthy_echo', arguments: { text: 'v1' } }))).toBe(
        'echo: v1',
      );
      const bridged: number[] = [];
      const steps = await client.callTool({ name: 'mcp__quick__steps', arguments: {} }, undefined, {
        onprogress: (p) => bridged.push(p.progress),
      });
      expect([text(steps), bridged]).toEqual(['done', [1, 2, 3]]);
      const found = await client.callTool({
        name: 'tool_search',
        arguments: { query: 'three progress steps' },
      });
      expect(JSON.stringify(found.structuredContent)).toContain('"quick_steps"');
      const progress: number[] = [];
      const ran = await client.callTool(
        { name: 'call_tool', arguments: { name: 'quick_steps' } },
        undefined,
        {
          onprogress: (p) => progress.push(p.progress),
        },
      );
      expect([text(ran), progress]).toEqual(['done', [1, 2, 3]]);
      const changed = new Promise<void>((resolve) =>
        client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
      );
      const added = await savePlugin();
      await changed;
      await expect.poll(async () => (await client.listTools()).tools.map((t) => t.name)).toContain(added);
    } finally {
      await client.close();
    }
  });

  for (const mode of ['pinned to 2026-07-28', 'in auto mode'] as const) {
    it(`the SDK v2 client ${mode}`, { timeout: 60_000 }, async () => {
      const client = new ClientV2(
        { name: 'sdk-v2', version: '1.0.0' },
        mode === 'in auto mode' ? {} : { versionNegotiation: { mode: { pin: '2026-07-28' } } },
      );
      await client.connect(
        new StdioV2({
          command: process.execPath,
          args: serveArgs(),
          env: cleanEnv() as Record<string, string>,
        }),
      );
      try {
        expectListed((await client.listTools()).tools.map((t) => t.name));
        expect(text(await client.callTool({ name: 'healthy_echo', arguments: { text: 'v2' } }))).toBe(
          'echo: v2',
        );
        const bridged: number[] = [];
        const steps = await client.callTool(
          { name: 'mcp__quick__steps', arguments: {} },
          {
            onprogress: (p) => bridged.push(p.progress),
          },
        );
        expect([text(steps), bridged]).toEqual(['done', [1, 2, 3]]);
        const found = await client.callTool({
          name: 'tool_search',
          arguments: { query: 'three progress steps' },
        });
        expect(JSON.stringify(found.structuredContent)).toContain('"quick_steps"');
        const progress: number[] = [];
        const ran = await client.callTool(
          { name: 'call_tool', arguments: { name: 'quick_steps' } },
          {
            onprogress: (p) => progress.push(p.progress),
          },
        );
        expect([text(ran), progress]).toEqual(['done', [1, 2, 3]]);
        const changed = new Promise<void>((resolve) =>
          client.setNotificationHandler('notifications/tools/list_changed', () => resolve()),
        );
        const subscription =
          client.getProtocolEra() === 'modern' ? await client.listen({ toolsListChanged: true }) : undefined;
        const added = await savePlugin();
        await changed;
        await expect.poll(async () => (await client.listTools()).tools.map((t) => t.name)).toContain(added);
        await subscription?.close?.();
      } finally {
        await client.close();
      }
    });
  }

  it("LangChain's MCP adapters (MultiServerMCPClient, a cached tool list)", { timeout: 60_000 }, async () => {
    const progress: number[] = [];
    let changed!: () => void;
    const listChanged = new Promise<void>((resolve) => {
      changed = resolve;
    });
    const client = new MultiServerMCPClient({
      mcpServers: {
        toolhost: {
          transport: 'stdio',
          command: process.execPath,
          args: serveArgs(),
          env: cleanEnv() as Record<string, string>,
        },
      },
      onProgress: (p) => {
        progress.push(p.progress);
      },
      onToolsListChanged: () => changed(),
    });
    try {
      const tools = await client.getTools();

      const named = (name: string) => {
        const tool = tools.find((t) => t.name === name);
        if (tool === undefined) throw new Error(`${name} is not in ${tools.map((t) => t.name).join(', ')}`);
        return tool;
      };
      expectListed(tools.map((t) => t.name));
      expect(said(await named('healthy_echo').invoke({ text: 'lc' }))).toContain('echo: lc');
      expect(said(await named('mcp__quick__steps').invoke({}))).toContain('done');
      expect(progress).toEqual([1, 2, 3]);
      const found = said(await named('tool_search').invoke({ query: 'three progress steps' }));
      expect(found).toContain('quick_steps');
      // The cached list never shows quick_steps: call_tool reaches it all the same.
      expect(said(await named('call_tool').invoke({ name: 'quick_steps' }))).toContain('done');
      expect(progress).toEqual([1, 2, 3, 1, 2, 3]);
      await savePlugin();
      await listChanged;
    } finally {
      await client.close();
    }
  });
});
