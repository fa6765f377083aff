import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { project, startToolhost, toolhost } from './cli.js';

/** A plugin whose tool declares requireApproval: it reaches the host through the plugin's manifest. */
const guarded = `import { definePlugin, defineTool } from '@toolhost/plugin-sdk';
import * as z from 'zod';
export default definePlugin({
  id: 'guarded',
  tools: [
    defineTool({ name: 'guarded_drop', description: 'Drops a table', input: z.object({ table: z.string() }),
      requireApproval: { reason: 'drops data', severity: 'critical' }, execute: ({ table }) => 'dropped ' + table }),
  ],
});
`;

describe('toolhost call, for a call needing approval', () => {
  let root: string;
  let dispose: () => Promise<void>;

  beforeAll(async () => {
    ({ root, dispose } = await project(['healthy'], { tools: { approve: ['healthy_echo'] } }));
    await mkdir(path.join(root, 'plugins', 'guarded'));
    await writeFile(path.join(root, 'plugins', 'guarded', 'index.ts'), guarded);
  });
  afterAll(() => dispose());

  describe.concurrent('', () => {
    it('without a terminal and without --yes: refused, naming --yes; exit 1', async () => {
      const run = await toolhost(['call', 'healthy_echo', '--input', '{"text":"hi"}', '--root', root]);
      expect(run.code).toBe(1);
      expect(run.stdout).toContain('Tool "healthy_echo" was not approved: denied by toolhost call');
      expect(run.stdout).toContain('pass --yes');
      expect(run.stdout).toContain('tools.approve pattern "healthy_echo"');
    });

    it('--yes approves it once and it runs', async () => {
      const run = await toolhost([
        'call',
        'healthy_echo',
        '--yes',
        '--input',
        '{"text":"hi"}',
        '--root',
        root,
      ]);
      expect(run).toEqual({ code: 0, stdout: 'echo: hi\n', stderr: '' });
    });

    it("a plugin tool's requireApproval crosses the isolate: refused without --yes, run with it", async () => {
      const refused = await toolhost([
        'call',
        'guarded_drop',
        '--input',
        '{"table":"users"}',
        '--root',
        root,
      ]);
      expect(refused.code).toBe(1);
      expect(refused.stdout).toContain("required by the tool's own requireApproval (drops data)");
      const approved = await toolhost([
        'call',
        'guarded_drop',
        '-y',
        '--input',
        '{"table":"users"}',
        '--root',
        root,
      ]);
      expect(approved).toEqual({ code: 0, stdout: 'dropped users\n', stderr: '' });
    });
  });

  it("--yes approves the named tool's own approval only: a run_code script's gated call needs --yes-all", async () => {
    const scripted = await project(['healthy'], {
      builtins: false,
      tools: { codeMode: true, approve: ['healthy_echo'] },
    });
    const code = JSON.stringify({ code: "return await tools.healthy_echo({ text: 'hi' });" });
    try {
      const once = await toolhost(['call', 'run_code', '--yes', '--input', code, '--root', scripted.root]);
      expect(once.code).toBe(1);
      expect(once.stdout).toContain('Tool "healthy_echo" was not approved');
      expect(once.stdout).toContain('--yes approves only the approvals of "run_code" itself');
      expect(once.stdout).toContain('pass --yes-all');
      const all = await toolhost(['call', 'run_code', '--yes-all', '--input', code, '--root', scripted.root]);
      expect(all.code).toBe(0);
      expect(all.stdout).toContain('"echo: hi"');
    } finally {
      await scripted.dispose();
    }
  });

  it('--url: the running server asks the command by elicitation; --yes answers, no terminal and no --yes denies', async () => {
    const remote = await project(['healthy'], {
      builtins: false,
      tools: { approve: ['healthy_echo'] },
      approvals: { mcpClients: ['toolhost-call'] },
    });
    const dev = startToolhost(['dev', '--port', '0', '--root', remote.root]);
    try {
      const [, url = ''] = await dev.stdout.waitFor(
        /MCP (http:\/\/127\.0\.0\.1:\d+\/mcp) \(streamable HTTP\)/,
      );
      const approved = await toolhost([
        'call',
        'healthy_echo',
        '--url',
        url,
        '--root',
        remote.root,
        '--yes',
        '--input',
        '{"text":"hi"}',
      ]);
      expect(approved).toEqual({ code: 0, stdout: 'echo: hi\n', stderr: '' });

      const refused = await toolhost(['call', 'healthy_echo', '--url', url, '--input', '{"text":"hi"}'], {
        cwd: remote.root,
      });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('pass --yes to approve it');
      expect(refused.stdout).toContain('Tool "healthy_echo" was not approved');
    } finally {
      expect(await dev.stop('SIGINT')).toBe(0);
      await remote.dispose();
    }
  });
});
