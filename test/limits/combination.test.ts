import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createHost, type RegisteredTool, type ToolHost } from '@toolhost/host';
import { afterEach, describe, expect, it } from 'vitest';
import { hostFor, project, textOf } from '../plugins/project.js';

const require = createRequire(import.meta.url);
const EVERYTHING_BIN = path.join(
  path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);
// Jailed (the default), it is granted the node_modules folder its code is in.
const everything = {
  command: process.execPath,
  args: [EVERYTHING_BIN],
  sandbox: { fs: { read: [path.resolve(EVERYTHING_BIN, '../../../..')] } },
};
const SLOW = 'mcp__everything__trigger-long-running-operation';

describe('how the limits combine (limits.ts)', () => {
  let host: ToolHost | undefined;
  let root: string | undefined;
  afterEach(async () => {
    await host?.close();
    if (root !== undefined) await rm(root, { recursive: true, force: true });
    host = undefined;
    root = undefined;
  });

  async function start(config: Parameters<typeof createHost>[0] = {}): Promise<ToolHost> {
    root = await mkdtemp(path.join(tmpdir(), 'toolhost-limits-'));
    host = await createHost({ root, pluginsDir: false, builtins: false, ...config });
    return host;
  }

  it('limits.mcpCallTimeoutMs above limits.timeoutMs takes effect: a slow bridged call finishes', async () => {
    const h = await start({
      limits: { timeoutMs: 200, mcpCallTimeoutMs: 20_000 },
      mcpServers: { everything },
    });
    const outcome = await h.session().call(SLOW, { duration: 0.6, steps: 1 });
    expect(textOf(outcome.result)).toContain('Long running operation completed');
    expect(outcome.status).toBe('ok');
  });

  it('limits.mcpCallTimeoutMs below limits.timeoutMs ends a bridged call, naming the setting', async () => {
    const h = await start({ limits: { mcpCallTimeoutMs: 300 }, mcpServers: { everything } });
    const outcome = await h.session().call(SLOW, { duration: 5, steps: 1 });
    expect(outcome.result.isError).toBe(true);
    expect(outcome.status).toBe('timeout');
    expect(textOf(outcome.result)).toBe(
      `MCP server "everything" did not answer within 300 ms (tool "trigger-long-running-operation"; limit: limits.mcpCallTimeoutMs)`,
    );
  });

  it.each(['inline', 'process'] as const)(
    "a plugin's own timeoutMs replaces the call limit, higher or lower (%s sandbox)",
    async (sandbox) => {
      const made = await project(['sleeper']);
      try {
        const longer = await hostFor(made.root, {
          sandbox,
          plugins: { sleeper: { limits: { timeoutMs: 20_000 } } },
          limits: { timeoutMs: 200 },
        });
        host = longer;
        expect(textOf((await longer.session().call('nap', { ms: 600 })).result)).toBe('rested');
        await longer.close();
        const shorter = await hostFor(made.root, {
          sandbox,
          plugins: { sleeper: { limits: { timeoutMs: 300 } } },
        });
        host = shorter;
        const cut = await shorter.session().call('nap', { ms: 20_000 });
        expect(cut.status).toBe('timeout');
        expect(textOf(cut.result)).toMatch(/did not finish within its time limit \(timeoutMs: 300\)/);
      } finally {
        await made.cleanup();
      }
    },
  );

  it("exec's own timeoutMs replaces the call limit", async () => {
    const h = await start({
      limits: { timeoutMs: 200 },
      builtins: { exec: { enabled: true, timeoutMs: 20_000 } },
    });
    const outcome = await h
      .session()
      .call('exec', { command: process.execPath, args: ['-e', 'setTimeout(() => console.log(42), 600)'] });
    expect(outcome.status).toBe('ok');
    expect(textOf(outcome.result)).toContain('42');
  });

  it("a tool's own limit is enforced by the wrapper, and the error names the setting", async () => {
    const h = await start();
    const hung: RegisteredTool = {
      descriptor: {
        name: 'hung',
        description: 'Never answers',
        inputSchema: { type: 'object' },
        owner: { kind: 'custom' },
      },
      source: 'custom',
      sourceId: 'backstop',
      executor: { ref: { kind: 'core', executorId: 'backstop/hung' }, run: () => new Promise(() => {}) },
      timeout: { ms: 50, setting: 'test.ownLimit' },
    };
    h.setSource({ kind: 'custom', id: 'backstop', tools: [hung] });
    const outcome = await h.session().call('hung', {});
    expect(outcome.status).toBe('timeout');
    expect(textOf(outcome.result)).toBe(
      'Tool "hung" timed out after 50 ms (limit: test.ownLimit) and was aborted',
    );
  });

  it('a call limit given in code beyond what a timer holds is refused as in the file, not turned into an instant timeout', async () => {
    const error = await start({ limits: { timeoutMs: 1e12 } }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'invalid-config',
      issues: [
        {
          file: 'createHost options',
          path: 'limits.timeoutMs',
          message: expect.stringContaining('2147483647'),
        },
      ],
    });
  });
});
