/** `toolhost dev` as a plugin author's loop: every call, every log line, every error, every warning. */

import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { project, REPO, startToolhost, toolhost, withToken } from './cli.js';

const URL_LINE = /MCP (http:\/\/127\.0\.0\.1:(\d+)\/mcp) \(streamable HTTP\)/;

const LOGGING_PLUGIN = `import { definePlugin, defineTool } from '@toolhost/plugin-sdk';
import * as z from 'zod';

export default definePlugin({
  id: 'healthy',
  tools: [
    defineTool({
      name: 'healthy_echo',
      description: 'Echoes its text',
      input: z.object({ text: z.string() }),
      execute: ({ text }, ctx) => {
        ctx.log.info('echoing', { length: text.length });
        if (text === 'fail') throw new Error('asked to fail');
        return \`echo: \${text}\`;
      },
    }),
  ],
});
`;

async function connect(url: string, root: string): Promise<Client> {
  const client = new Client({ name: 'dev-loop-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), withToken(root)));
  return client;
}

describe('toolhost dev loop', () => {
  it('prints a line per MCP call (session, tool, status, duration) and the plugin log lines', async () => {
    const { root, dispose } = await project(['healthy'], { builtins: false });
    await writeFile(path.join(root, 'plugins/healthy/index.ts'), LOGGING_PLUGIN);
    const dev = startToolhost(['dev', '--port', '0', '--root', root]);
    try {
      const [, url = ''] = await dev.stdout.waitFor(URL_LINE);
      const client = await connect(url, root);
      try {
        await client.callTool({ name: 'healthy_echo', arguments: { text: 'hi' } });
        await dev.stdout.waitFor(
          /^\d\d:\d\d:\d\d \[[0-9a-f-]{8}\] healthy_echo \[info\] echoing \{"length":2\}$/m,
        );
        await dev.stdout.waitFor(/^\d\d:\d\d:\d\d \[([0-9a-f-]{8})\] healthy_echo ok in \d+ ms$/m);
        await client.callTool({ name: 'healthy_echo', arguments: { text: 'fail' } });
        await dev.stdout.waitFor(/\] healthy_echo tool-error in \d+ ms: .*asked to fail/);
      } finally {
        await client.close();
      }
    } finally {
      expect(await dev.stop('SIGINT')).toBe(0);
      await dispose();
    }
  });

  it('prints each new build error, says "code reloaded" for an executor-only edit', async () => {
    const { root, dispose } = await project(['healthy'], { builtins: false });
    const dev = startToolhost(['dev', '--port', '0', '--root', root]);
    const file = path.join(root, 'plugins', 'healthy', 'index.ts');
    const good = await readFile(file, 'utf8');
    try {
      await dev.stdout.waitFor(URL_LINE);
      let from = dev.stdout.text.length;
      await writeFile(file, good.replace('echo: ', 'ECHO: '));
      await dev.stdout.waitFor(/rebuilt in \d+ ms: code reloaded \(healthy\)$/m, { from });

      from = dev.stdout.text.length;
      await writeFile(file, 'export default {');
      await dev.stdout.waitFor(/now hidden healthy_echo\n.*plugin-load-failed: .*does not build/, { from });

      // The second and third broken saves change no tool, but their errors are news.
      from = dev.stdout.text.length;
      await writeFile(file, 'export default { broken: ;');
      await dev.stdout.waitFor(
        /no tool changed\n {2}plugin healthy failed: plugin "healthy" does not build: .*/,
        {
          from,
        },
      );
      from = dev.stdout.text.length;
      await writeFile(file, 'const = 1;');
      await dev.stdout.waitFor(
        /no tool changed\n {2}plugin healthy failed: plugin "healthy" does not build: .*/,
        {
          from,
        },
      );

      from = dev.stdout.text.length;
      await writeFile(file, good);
      await dev.stdout.waitFor(/rebuilt in \d+ ms: now visible healthy_echo$/m, { from });
    } finally {
      expect(await dev.stop('SIGINT')).toBe(0);
      await dispose();
    }
  });

  it('refuses a taken port, saying how to choose another', async () => {
    const { root, dispose } = await project(['healthy'], { builtins: false });
    const holder: Server = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as { port: number }).port;
    try {
      const { code, stderr } = await toolhost(['dev', '--port', String(port), '--root', root]);
      expect(stderr).toContain(
        `port ${port} is taken (another toolhost dev?): stop what holds it, pass --port N for another port, or --port 0 for any free one`,
      );
      expect(code).toBe(1);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
      await dispose();
    }
  });

  it('shows warnings in list and dev: missing grant, settings for no plugin, a deny pattern that matches nothing', async () => {
    const { root, dispose } = await project(['healthy', { from: path.join(REPO, 'plugins/notes') }], {
      builtins: false,
      tools: { deny: ['helthy_*'] },
      plugins: { notes: { grants: { fs: { read: ['notes'] } } }, weathr: { enabled: true } },
    });
    const expected = [
      /Warnings \(3\)\n/,
      /⚠ plugins\.weathr: config has settings for "weathr" but plugins\/weathr\/ does not exist/,
      /✖ plugin notes: asks for permissions\.fs\.write "notes", which config does not grant\n {6}fix: add "notes" to plugins\.notes\.grants\.fs\.write in toolhost\.config\.json \(or run .+ grant notes\)/,
      /⚠ registry: tools\.deny pattern "helthy_\*" matches no tool \(a typo\?\)/,
    ];
    try {
      const list = await toolhost(['list', '--root', root], { cwd: root });
      expect(list.code).toBe(0);
      for (const pattern of expected) expect(list.stdout).toMatch(pattern);

      const dev = startToolhost(['dev', '--port', '0', '--root', root], { cwd: root });
      try {
        await dev.stdout.waitFor(URL_LINE);
        for (const pattern of expected) expect(dev.stdout.text).toMatch(pattern);
        // A config edit that fixes one is reported with the warnings left.
        const from = dev.stdout.text.length;
        await writeFile(
          path.join(root, 'toolhost.config.json'),
          JSON.stringify({
            builtins: false,
            tools: { deny: ['helthy_*'] },
            plugins: { notes: { grants: { fs: { read: ['notes'], write: ['notes'] } } } },
          }),
        );
        await dev.stdout.waitFor(
          /rebuilt in \d+ ms: .*\n(?:.*\n)*? {2}⚠ registry: tools\.deny pattern "helthy_\*"/,
          {
            from,
          },
        );
        expect(dev.stdout.text.slice(from)).not.toContain('weathr');
      } finally {
        expect(await dev.stop('SIGINT')).toBe(0);
      }
    } finally {
      await dispose();
    }
  });
});
