import { createRequire } from 'node:module';
import * as path from 'node:path';
import type { BeforeToolCallEvent, RegisteredTool, ToolHost } from '@toolhost/host';
import { afterEach, describe, expect, it } from 'vitest';
import { hostFor, project, textOf } from '../plugins/project.js';

const require = createRequire(import.meta.url);
const EVERYTHING_BIN = path.join(
  path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);

/** A host-wide before-hook that records what it saw. */
function spyHook(seen: BeforeToolCallEvent[]) {
  return {
    name: 'spy',
    beforeToolCall: (event: BeforeToolCallEvent) => {
      seen.push(event);
    },
  };
}

describe('every tool input is validated on the host, before the before-hooks', () => {
  let host: ToolHost | undefined;
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await host?.close();
    await cleanup?.();
    host = undefined;
    cleanup = undefined;
  });

  it('a plugin tool: hooks see valid input with defaults applied; invalid input reaches neither hook nor isolate', async () => {
    const made = await project(['defaults']);
    cleanup = made.cleanup;
    const seen: BeforeToolCallEvent[] = [];
    host = await hostFor(made.root, { hooks: [spyHook(seen)] });
    const session = host.session();

    const ok = await session.call('greet', { name: 'Ada' });
    expect(textOf(ok.result)).toBe('Hello Ada');
    expect(seen.map((e) => e.input)).toEqual([{ name: 'Ada', tone: 'plain' }]);

    const bad = await session.call('greet', { name: '', tone: 'rude' });
    expect(bad.status).toBe('invalid-input');
    expect(textOf(bad.result)).toMatch(/^Invalid input for tool "greet": at "name": .*; at "tone": /);
    expect(seen).toHaveLength(1);
  });

  it("a plugin tool: what only the plugin's zod can check is still checked inside its isolate", async () => {
    const made = await project(['defaults']);
    cleanup = made.cleanup;
    host = await hostFor(made.root);
    const outcome = await host.session().call('greet', { name: 'Ada', nickname: 'forbidden' });
    expect(outcome.status).toBe('invalid-input');
    expect(textOf(outcome.result)).toMatch(/at "nickname": that nickname is not allowed/);
  });

  it('a tool handed in as a source without a check of its own is held to its JSON Schema', async () => {
    const made = await project([]);
    cleanup = made.cleanup;
    const seen: BeforeToolCallEvent[] = [];
    host = await hostFor(made.root, { hooks: [spyHook(seen)] });
    const ran: unknown[] = [];
    const tool: RegisteredTool = {
      descriptor: {
        name: 'resize',
        description: 'Resizes',
        inputSchema: {
          type: 'object',
          properties: { width: { type: 'integer', minimum: 1 }, unit: { type: 'string', default: 'px' } },
          required: ['width'],
        },
        owner: { kind: 'plugin', pluginId: 'elsewhere' },
      },
      source: 'plugin',
      sourceId: 'elsewhere',
      executor: {
        ref: { kind: 'plugin', pluginId: 'elsewhere', toolName: 'resize' },
        run: async (input) => {
          ran.push(input);
          return { content: [{ type: 'text', text: 'done' }] };
        },
      },
    };
    host.setSource({ kind: 'plugin', id: 'elsewhere', tools: [tool] });
    const bad = await host.session().call('resize', { width: 0 });
    expect(bad.status).toBe('invalid-input');
    expect(textOf(bad.result)).toBe('Invalid input for tool "resize": at "width": must be >= 1');
    expect(ran).toEqual([]);
    expect(seen).toEqual([]);
    const good = await host.session().call('resize', { width: 3 });
    expect(good.status).toBe('ok');
    expect(ran).toEqual([{ width: 3, unit: 'px' }]);
    expect(seen.map((e) => e.input)).toEqual([{ width: 3, unit: 'px' }]);
  });

  it('a bridged MCP tool: invalid input is refused on the host and never sent to the server', async () => {
    const made = await project([]);
    cleanup = made.cleanup;
    const seen: BeforeToolCallEvent[] = [];
    host = await hostFor(made.root, {
      hooks: [spyHook(seen)],
      // Jailed (the default), it is granted the node_modules folder its code is in.
      mcpServers: {
        everything: {
          command: process.execPath,
          args: [EVERYTHING_BIN],
          sandbox: { fs: { read: [path.resolve(EVERYTHING_BIN, '../../../..')] } },
        },
      },
    });
    const session = host.session();
    const bad = await session.call('mcp__everything__echo', { message: 42 });
    expect(bad.status).toBe('invalid-input');
    expect(textOf(bad.result)).toBe(
      'Invalid input for tool "mcp__everything__echo": at "message": expected string, received number',
    );
    expect(seen).toEqual([]);
    const good = await session.call('mcp__everything__echo', { message: 'hi' });
    expect(good.status).toBe('ok');
    expect(seen.map((e) => e.input)).toEqual([{ message: 'hi' }]);
  });
});
