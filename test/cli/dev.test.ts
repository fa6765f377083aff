import { readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { cleanEnv, project, projectToken, REPO, start, startToolhost, withToken } from './cli.js';

async function toolNames(url: string, root: string): Promise<string[]> {
  const client = new Client({ name: 'cli-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), withToken(root)));
  try {
    return (await client.listTools()).tools.map((t) => t.name);
  } finally {
    await client.close();
  }
}

const URL_LINE = /MCP (http:\/\/127\.0\.0\.1:(\d+)\/mcp) \(streamable HTTP\)/;

describe('toolhost dev', () => {
  it('prints the plan, serves it over MCP, and reports each rebuild with what changed and how long it took', async () => {
    const { root, dispose } = await project(['healthy'], { builtins: false });
    const dev = startToolhost(['dev', '--port', '0', '--root', root]);
    try {
      const [, url = ''] = await dev.stdout.waitFor(URL_LINE);
      expect(dev.stdout.text).toMatch(
        /^Visible tools \(1\)\n {2}healthy_echo +plugin +plugin:healthy +plugin:healthy:healthy_echo/,
      );
      expect(dev.stdout.text).toMatch(/watching .*plugins\/ and .*toolhost\.config\.json; Ctrl-C to stop\n/);
      // The dashboard's address carries the run's token: its API answers only the page opened from it.
      expect(dev.stdout.text).toMatch(/^dashboard http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}$/m);
      // The endpoint's bearer token, made for the project on first use, is printed too.
      expect(dev.stdout.text).toContain(`token ${projectToken(root)} (send "Authorization: Bearer <token>"`);
      expect(await toolNames(url, root)).toEqual(['healthy_echo']);

      const file = path.join(root, 'plugins', 'healthy', 'index.ts');
      const from = dev.stdout.text.length;
      await writeFile(file, (await readFile(file, 'utf8')).replaceAll('healthy_echo', 'healthy_echo2'));
      await dev.stdout.waitFor(
        /^\d\d:\d\d:\d\d plugins:healthy rebuilt in \d+ ms: added healthy_echo2; removed healthy_echo$/m,
        { from },
      );
      expect(await toolNames(url, root)).toEqual(['healthy_echo2']);

      // A save that breaks the plugin hides its tools, with the reason.
      const broken = dev.stdout.text.length;
      await writeFile(file, 'export default {');
      await dev.stdout.waitFor(
        /rebuilt in \d+ ms: now hidden healthy_echo2\n {2}healthy_echo2 hidden: plugin-load-failed: /,
        {
          from: broken,
        },
      );
      expect(await toolNames(url, root)).toEqual([]);
    } finally {
      expect(await dev.stop('SIGINT')).toBe(0);
      await dispose();
    }
  });

  it('npm start runs it on the repository plugins', async () => {
    const npm = start('npm', ['start', '--', '--port', '0'], {
      cwd: REPO,
      env: cleanEnv({ WEATHER_API_KEY: undefined }),
      group: true,
    });
    try {
      const [, url = ''] = await npm.stdout.waitFor(URL_LINE, { timeoutMs: 30_000 });
      expect(npm.stdout.text).toContain('toolhost dev --root .');
      const names = await toolNames(url, REPO);
      expect(names).toEqual(
        expect.arrayContaining(['text_stats', 'text_case', 'notes_add', 'audit_echo', 'read']),
      );
      expect(names).not.toContain('weather_now'); // hidden until WEATHER_API_KEY is set
    } finally {
      await npm.stop('SIGTERM');
    }
  });
});
