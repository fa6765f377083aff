/**
 * Code mode under the one policy pipeline: `run_code` and `describe_tools` are tools of the Map
 * like every other (source `code-mode`, group `code-mode`), so allow/deny apply to them, the
 * host's plan and diffs show them, and an MCP client of a code-mode session lists them and hears
 * `list_changed` when they come or go.
 */
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { createHost, type HostChange, resultText, type ToolHost } from '@toolhost/host';
import { internalsOf } from '@toolhost/host/internal';
import { defineTool } from '@toolhost/plugin-sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { connectInMemory } from '../mcp/in-memory-client.js';

const customTools = [
  defineTool({
    name: 'github_create_issue',
    description: 'Create a GitHub issue',
    input: z.object({ title: z.string() }),
    execute: ({ title }) => `created ${title}`,
  }),
  defineTool({
    name: 'deploy_production',
    description: 'Deploy to production',
    input: z.object({}),
    execute: () => 'deployed',
  }),
];

let host: ToolHost | undefined;
/** Where scripts run: the executor process by default, the host where a test says. */
let sandbox: 'inline' | 'process' = 'process';

async function start(tools: Record<string, unknown> = {}, builtins = false): Promise<ToolHost> {
  host = await createHost({ configFile: false, pluginsDir: false, builtins, customTools, tools, sandbox });
  return host;
}

afterEach(async () => {
  await host?.close();
  host = undefined;
  sandbox = 'process';
});

const names = (list: readonly { name: string }[]) => list.map((t) => t.name);

describe.each(['process', 'inline'] as const)(
  'code mode under tools.allow / tools.deny (sandbox %s)',
  (placement) => {
    beforeEach(() => {
      sandbox = placement;
    });

    it('a denied run_code is not offered and a call is refused like any denied tool', async () => {
      const h = await start({ deny: ['run_code', 'deploy_production'] });
      const session = h.session({ codeMode: true });
      expect(names(session.tools('anthropic'))).toEqual(['describe_tools']);
      expect(session.check('run_code')).toMatchObject({ ok: false, refusal: 'denied' });
      const refused = await session.call('run_code', { code: 'return 1' });
      expect(refused.status).toBe('blocked');
      expect(refused.result.isError).toBe(true);
      const denied = resultText((await h.session().call('deploy_production', {})).result);
      expect(resultText(refused.result)).toBe(denied.replaceAll('deploy_production', 'run_code'));
    });

    it('an allow list that does not name them shuts out both; group:code-mode lets them in', async () => {
      const h = await start({ allow: ['github_*'] });
      const session = h.session({ codeMode: true });
      expect(session.tools('anthropic')).toEqual([]);
      const refused = await session.call('describe_tools', { query: 'issue' });
      expect(resultText(refused.result)).toMatch(
        /policy-denied: "describe_tools" is not matched by tools\.allow .*add "describe_tools" or "group:code-mode"/,
      );
      // Leaving code mode out of an allow list is the common case: no "admits none" warning for it.
      expect(internalsOf(h).registry.diagnostics.filter((d) => d.code === 'allow-matches-nothing')).toEqual(
        [],
      );
      h.setPolicy({ allow: ['github_*', 'group:code-mode'] });
      expect(names(session.tools('anthropic'))).toEqual(['run_code', 'describe_tools']);
      const ran = await session.call('run_code', {
        code: `return await tools.github_create_issue({ title: 'x' });`,
      });
      expect(resultText(ran.result)).toContain('"created x"');
    });

    it('tools.deny of group:code-mode denies both; builtins: false does not', async () => {
      const h = await start({ codeMode: true }, false);
      expect(names(h.session().tools('anthropic'))).toEqual(['run_code', 'describe_tools']);
      h.setPolicy({ codeMode: true, deny: ['group:code-mode'] });
      expect(h.session().tools('anthropic')).toEqual([]);
      expect(h.session().check('run_code')).toMatchObject({ ok: false, refusal: 'denied' });
    });
  },
);

describe('code mode in the registry, the plan and its diffs', () => {
  it('the Map holds them; the plan hides them while code mode is off, naming tools.codeMode', async () => {
    const h = await start();
    expect(internalsOf(h).registry.tools.get('run_code')).toMatchObject({
      source: 'builtin',
      sourceId: 'code-mode',
    });
    const hidden = h.plan().hidden.find((e) => e.descriptor.name === 'run_code');
    expect(hidden?.diagnostics.map((d) => `${d.reason}: ${d.message}`)).toEqual([
      'context-mismatch: session context "tools.codeMode" is false, needs true',
    ]);
    // A session out of code mode cannot call them, and is told why.
    const refused = await h.session().call('run_code', { code: 'return 1' });
    expect(resultText(refused.result)).toMatch(/not available: context-mismatch.*tools\.codeMode/);
    // Scripts never see them among the tools they may call.
    expect(names(h.session({ codeMode: true }).callableDescriptors())).toEqual([
      'deploy_production',
      'github_create_issue',
    ]);
  });

  it('turning tools.codeMode on shows them in the plan and the change event', async () => {
    const h = await start();
    const changes: HostChange[] = [];
    h.onChange((change) => changes.push(change));
    h.setPolicy({ codeMode: true });
    expect(names(h.plan().visible.map((e) => e.descriptor))).toEqual([
      'deploy_production',
      'github_create_issue',
      'run_code',
      'describe_tools',
    ]);
    expect(changes.at(-1)?.newlyVisible).toEqual(['run_code', 'describe_tools']);
  });

  it('an MCP client of a code-mode session lists run_code, and hears list_changed when policy takes it away', async () => {
    const h = await start({ codeMode: true });
    const { client, close } = await connectInMemory(h, 'code-mode-test');
    try {
      expect(names((await client.listTools()).tools)).toEqual(['run_code', 'describe_tools']);
      const changed = new Promise<void>((resolve) =>
        client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
      );
      h.setPolicy({ codeMode: true, deny: ['run_code'] });
      await changed;
      expect(names((await client.listTools()).tools)).toEqual(['describe_tools']);
    } finally {
      await close();
    }
  });
});
