import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { createHost, serveHttp, type ToolHost } from '@toolhost/host';
import { defineTool } from '@toolhost/plugin-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { connectInMemory } from './in-memory-client.js';

const tool = (name: string, description: string) =>
  defineTool({ name, description, input: z.object({}), execute: () => `ran ${name}` });

const customTools = [
  tool('weather_now', 'Current weather for a city'),
  tool('github_create_issue', 'Create a new issue in a GitHub repository'),
  tool('github_list_pulls', 'List pull requests of a GitHub repository'),
  tool('github_delete_repo', 'Delete a GitHub repository'),
];

const connect = (host: ToolHost) => connectInMemory(host, 'deferral-test');

describe('deferred tools served over MCP: the tool_search meta-tool', () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  it('lists the loaded tools and tool_search; a search loads what it finds and sends list_changed', async () => {
    const host = await createHost({
      configFile: false,
      pluginsDir: false,
      builtins: false,
      customTools,
      tools: { defer: ['github_*'], deny: ['github_delete_repo'] },
    });
    closers.push(() => host.close());
    const { client, close } = await connect(host);
    closers.unshift(close);

    const listed = await client.listTools();
    expect(listed.tools.map((t) => t.name)).toEqual(['weather_now', 'tool_search', 'call_tool']);

    const changed = new Promise<void>((resolve) =>
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
    );
    const found = await client.callTool({
      name: 'tool_search',
      arguments: { query: 'github pull requests' },
    });
    expect(found.isError).toBeUndefined();
    const foundNames = (found.structuredContent as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(foundNames).toEqual(['github_list_pulls', 'github_create_issue']);
    await changed;

    const relisted = await client.listTools();
    expect(relisted.tools.map((t) => t.name)).toEqual([
      'weather_now',
      'tool_search',
      'call_tool',
      'github_list_pulls',
      'github_create_issue',
    ]);
    const call = await client.callTool({ name: 'github_list_pulls', arguments: {} });
    expect(call.content).toEqual([{ type: 'text', text: 'ran github_list_pulls' }]);

    // The denied tool is neither found nor callable.
    const search = await client.callTool({ name: 'tool_search', arguments: { query: 'delete repository' } });
    expect(JSON.stringify(search.content)).not.toContain('github_delete_repo');
    await expect(client.callTool({ name: 'github_delete_repo', arguments: {} })).rejects.toThrow(
      /denied by tools\.deny/,
    );
  });

  it('a bad search is an isError result, and the list stays as it was', async () => {
    const host = await createHost({
      configFile: false,
      pluginsDir: false,
      builtins: false,
      customTools,
      tools: { defer: ['github_*'] },
    });
    closers.push(() => host.close());
    const { client, close } = await connect(host);
    closers.unshift(close);
    const bad = await client.callTool({ name: 'tool_search', arguments: { limit: 3 } });
    expect(bad.isError).toBe(true);
    expect(bad.content).toEqual([
      { type: 'text', text: 'Invalid input for tool "tool_search": at "query": must be a non-empty string' },
    ]);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual([
      'weather_now',
      'tool_search',
      'call_tool',
    ]);
  });
});

describe('deferral for clients that cache the tool list: tool_search + call_tool', () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  it("a 2026-07-28 client's search changes no client's tools/list, and call_tool runs what it found under policy and hooks", async () => {
    const host = await createHost({
      configFile: false,
      pluginsDir: false,
      builtins: false,
      customTools,
      tools: { defer: ['github_*'], deny: ['github_delete_repo'] },
    });
    closers.push(() => host.close());
    const seen: string[] = [];
    host.addHooks({ name: 'audit', beforeToolCall: (event) => void seen.push(event.toolName) });
    const served = await serveHttp(host, { auth: { allowUnauthenticated: true } });
    closers.unshift(() => served.close());
    const pinned = () =>
      new Client(
        { name: 'pinned', version: '1.0.0' },
        { versionNegotiation: { mode: { pin: '2026-07-28' } } },
      );
    const searcher = pinned();
    const other = pinned();
    await searcher.connect(new StreamableHTTPClientTransport(new URL(served.url)));
    await other.connect(new StreamableHTTPClientTransport(new URL(served.url)));
    const before = (await other.listTools()).tools.map((t) => t.name);
    expect(before).toEqual(['weather_now', 'tool_search', 'call_tool']);

    const found = await searcher.callTool({
      name: 'tool_search',
      arguments: { query: 'github pull requests' },
    });
    const names = (found.structuredContent as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(names).toEqual(['github_list_pulls', 'github_create_issue']);
    expect((await searcher.listTools()).tools.map((t) => t.name)).toEqual(before);
    expect((await other.listTools()).tools.map((t) => t.name)).toEqual(before);

    const call = await other.callTool({
      name: 'call_tool',
      arguments: { name: 'github_list_pulls', arguments: {} },
    });
    expect(call.content).toEqual([{ type: 'text', text: 'ran github_list_pulls' }]);
    expect(seen).toContain('github_list_pulls');
    expect(seen).not.toContain('call_tool');

    const denied = await other.callTool({ name: 'call_tool', arguments: { name: 'github_delete_repo' } });
    expect(denied.isError).toBe(true);
    expect(JSON.stringify(denied.content)).toMatch(/denied by tools\.deny/);
    await searcher.close();
    await other.close();
  });

  it('a 2025-11-25 client lists call_tool beside tool_search and calls a deferred tool through it without listing again', async () => {
    const host = await createHost({
      configFile: false,
      pluginsDir: false,
      builtins: false,
      customTools,
      tools: { defer: ['github_*'] },
    });
    closers.push(() => host.close());
    const { client, close } = await connect(host);
    closers.unshift(close);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual([
      'weather_now',
      'tool_search',
      'call_tool',
    ]);
    const call = await client.callTool({
      name: 'call_tool',
      arguments: { name: 'github_create_issue', arguments: {} },
    });
    expect(call.content).toEqual([{ type: 'text', text: 'ran github_create_issue' }]);
    const bad = await client.callTool({ name: 'call_tool', arguments: { arguments: {} } });
    expect(bad.isError).toBe(true);
    expect(bad.content).toEqual([
      {
        type: 'text',
        text: 'Invalid input for tool "call_tool": at "name": must be the name of a tool (a non-empty string)',
      },
    ]);
    const nested = await client.callTool({
      name: 'call_tool',
      arguments: { name: 'call_tool', arguments: {} },
    });
    expect(nested.isError).toBe(true);
    expect(JSON.stringify(nested.content)).toContain('call_tool cannot call itself');
  });
});
