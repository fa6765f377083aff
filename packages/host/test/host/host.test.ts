import { internalsOf } from '@toolhost/host/internal';
import { defineTool } from '@toolhost/plugin-sdk';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { resultText } from '../../src/core/wrap/results.js';
import { createHost } from '../../src/host/host.js';
import type { HostChange } from '../../src/host/types.js';
import { fakeTool } from '../helpers.js';

const hello = defineTool({
  name: 'hello',
  description: 'Greets',
  input: z.object({ who: z.string() }),
  execute: ({ who }) => `hello ${who}`,
});

describe('ToolHost', () => {
  it('registers built-ins (exec off by default) and custom tools', async () => {
    const host = await createHost({ pluginsDir: false, customTools: [hello] });
    expect([...internalsOf(host).registry.tools.keys()].sort()).toEqual(
      ['describe_tools', 'edit', 'grep', 'hello', 'ls', 'read', 'run_code', 'write'].sort(),
    );
    expect(internalsOf(host).registry.tools.get('read')?.descriptor.owner).toEqual({ kind: 'core' });
    expect(internalsOf(host).registry.tools.get('hello')?.descriptor.owner).toEqual({ kind: 'custom' });
  });

  it('leaves built-ins out when disabled', async () => {
    const host = await createHost({ pluginsDir: false, builtins: false, customTools: [hello] });
    // Code mode's tools are not built-ins of the workspace: tools.codeMode switches them.
    expect([...internalsOf(host).registry.tools.keys()]).toEqual(['run_code', 'describe_tools', 'hello']);
    expect(host.plan().hidden.map((h) => [h.descriptor.name, h.diagnostics[0]?.reason])).toContainEqual([
      'read',
      'policy-denied',
    ]);
  });

  it('rebuilds the whole Map when a custom tool is added, and the disposer removes it', async () => {
    const host = await createHost({ pluginsDir: false, builtins: false });
    const changes: HostChange[] = [];
    host.onChange((change) => changes.push(change));
    const before = internalsOf(host).registry.tools;
    const dispose = host.addTool(hello);
    expect(internalsOf(host).registry.tools).not.toBe(before);
    expect(before.has('hello')).toBe(false);
    expect(changes.at(-1)).toMatchObject({ version: 1, added: ['hello'], removed: [], changed: [] });
    dispose();
    expect(internalsOf(host).registry.tools.has('hello')).toBe(false);
    expect(changes.at(-1)).toMatchObject({ version: 2, added: [], removed: ['hello'] });
  });

  it('lets a custom tool override a built-in, with a diagnostic and an overridden entry', async () => {
    const read = defineTool({
      name: 'read',
      description: 'my read',
      input: z.object({}),
      execute: () => 'mine',
    });
    const host = await createHost({ pluginsDir: false, customTools: [read] });
    const outcome = await host.session().call('read', {});
    expect(resultText(outcome.result)).toBe('mine');
    expect(internalsOf(host).registry.diagnostics).toContainEqual(
      expect.objectContaining({ code: 'tool-overridden', toolName: 'read' }),
    );
    expect(host.plan().hidden).toContainEqual(
      expect.objectContaining({
        descriptor: expect.objectContaining({ name: 'read', owner: { kind: 'core' } }),
      }),
    );
  });

  it('hides a custom tool whose name a model API would reject, and never offers it to a model', async () => {
    const host = await createHost({ pluginsDir: false, builtins: false, customTools: [hello] });
    host.addTool({ ...hello, name: 'say hello' } as typeof hello);
    const session = host.session();
    expect(session.tools('anthropic').map((t) => t.name)).toEqual(['hello']);
    expect(host.plan().hidden).toContainEqual({
      descriptor: expect.objectContaining({ name: 'say hello' }),
      diagnostics: [expect.objectContaining({ reason: 'invalid-name' })],
    });
    const refused = await session.call('say hello', { who: 'a' });
    expect(refused.result.isError).toBe(true);
    expect(resultText(refused.result)).toContain('is not a valid tool name');
  });

  it('applies a new policy to the next call of an existing session', async () => {
    const host = await createHost({ pluginsDir: false, builtins: false, customTools: [hello] });
    const session = host.session();
    expect((await session.call('hello', { who: 'a' })).result.isError).toBeUndefined();
    host.setPolicy({ deny: ['hello'] });
    const denied = await session.call('hello', { who: 'a' });
    expect(denied.result.isError).toBe(true);
    expect(resultText(denied.result)).toContain('denied by tools.deny pattern "hello"');
  });

  it('merges plugin and MCP sources through setSource and reports the change', async () => {
    const host = await createHost({ pluginsDir: false, builtins: false });
    host.setSource({ kind: 'plugin', id: 'p', tools: [fakeTool('p_tool', 'plugin', 'p')] });
    expect(internalsOf(host).registry.tools.get('p_tool')?.source).toBe('plugin');
    const change = (() => {
      let seen: HostChange | undefined;
      const off = host.onChange((c) => {
        seen = c;
      });
      host.removeSource('plugin', 'p');
      off();
      return seen;
    })();
    expect(change?.removed).toEqual(['p_tool']);
  });

  it('runs host hooks for every session until disposed', async () => {
    const host = await createHost({ pluginsDir: false, builtins: false, customTools: [hello] });
    const dispose = host.addHooks({
      name: 'deny-all',
      beforeToolCall: () => ({ block: true, reason: 'closed' }),
    });
    const session = host.session();
    expect(resultText((await session.call('hello', { who: 'x' })).result)).toContain('closed');
    dispose();
    expect(resultText((await session.call('hello', { who: 'x' })).result)).toBe('hello x');
  });

  it('keeps notifying other listeners when one throws', async () => {
    const host = await createHost({ pluginsDir: false, builtins: false });
    let notified = false;
    host.onChange(() => {
      throw new Error('bad listener');
    });
    host.onChange(() => {
      notified = true;
    });
    host.addTool(hello);
    expect(notified).toBe(true);
  });
});

describe('ToolHost.close', () => {
  it('waits for calls in flight before it resolves', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started: () => void = () => {};
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const slow = defineTool({
      name: 'slow',
      description: 'Waits for the test',
      input: z.object({}),
      execute: async () => {
        started();
        await gate;
        return 'done';
      },
    });
    const host = await createHost({ pluginsDir: false, builtins: false, customTools: [slow] });
    const call = host.session().call('slow', {});
    await running;
    let closed = false;
    const closing = host.close().then(() => {
      closed = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(closed).toBe(false);
    release();
    expect(resultText((await call).result)).toBe('done');
    await closing;
    expect(closed).toBe(true);
  });

  it('refuses calls from the moment it starts closing, in old and new sessions, while the running one finishes', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let runs = 0;
    const slow = defineTool({
      name: 'slow',
      description: 'Waits for the test',
      input: z.object({}),
      execute: async () => {
        runs += 1;
        await gate;
        return 'done';
      },
    });
    const host = await createHost({ pluginsDir: false, builtins: false, customTools: [slow] });
    const session = host.session();
    const running = session.call('slow', {});
    const closing = host.close();

    const refused = await session.call('slow', {});
    expect(refused.status).toBe('blocked');
    expect(resultText(refused.result)).toBe(
      'Tool "slow" was not called: the host is closed (host.close() was called)',
    );
    release();
    expect(resultText((await running).result)).toBe('done');
    await closing;
    const later = await host.session().call('slow', {});
    expect(later.status).toBe('blocked');
    expect(runs).toBe(1);
  });
});
