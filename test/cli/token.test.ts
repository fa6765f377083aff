import { stat } from 'node:fs/promises';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { project, projectToken, serveOverHttp, toolhost, toolhostInProcess, withToken } from './cli.js';

describe('toolhost token', () => {
  it('prints the default token, made 0600 on first use; --rotate replaces it, --remove removes one', async () => {
    const { root, dispose } = await project([], { builtins: false });
    try {
      const shown = await toolhostInProcess(['token', '--root', root]);
      expect(shown.code).toBe(0);
      const [, first] = /^default\t(th_[A-Za-z0-9_-]{43})\n$/.exec(shown.stdout) ?? [];
      expect(first).toBeDefined();
      expect((await stat(path.join(root, '.toolhost/serve-tokens.json'))).mode & 0o777).toBe(0o600);
      expect((await toolhostInProcess(['token', '--root', root])).stdout).toBe(shown.stdout);

      const rotated = await toolhostInProcess(['token', '--rotate', 'default', '--root', root]);
      expect(rotated.code).toBe(0);
      expect(rotated.stdout).toMatch(/^default\tth_/);
      expect(rotated.stdout).not.toContain(first);
      expect(rotated.stderr).toContain('the old one is refused from the next request on');
      // The new token is the one kept: the file holds it, not the old one.
      expect((await toolhost(['token', '--root', root])).stdout).toBe(rotated.stdout);

      const added = await toolhostInProcess(['token', '--rotate', 'ci-bot', '--json', '--root', root]);
      expect(JSON.parse(added.stdout)).toMatchObject({ name: 'ci-bot' });
      expect((await toolhostInProcess(['token', '--root', root])).stdout).toMatch(
        /^default\tth_.*\nci-bot\tth_.*\n$/,
      );
      expect((await toolhostInProcess(['token', '--remove', 'ci-bot', '--root', root])).code).toBe(0);
      const gone = await toolhostInProcess(['token', '--remove', 'ci-bot', '--root', root]);
      expect(gone.code).toBe(1);
      expect(gone.stderr).toContain('no token named "ci-bot"');
      const bad = await toolhostInProcess(['token', '--rotate', 'a b', '--root', root]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('a token name is 1-64 letters');
    } finally {
      await dispose();
    }
  });
});

describe('serve --http and its credential', () => {
  it('--allow-unauthenticated is refused with a --host other machines can reach', async () => {
    const run = await toolhost(['serve', '--http', '0', '--host', '0.0.0.0', '--allow-unauthenticated']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      '--allow-unauthenticated is for a loopback address only, and --host 0.0.0.0 can be reached from other machines',
    );
  });

  it('says it wants a token; mcp-config --url prints the client entry that sends it, and that entry works', async () => {
    const { root, dispose } = await project(['healthy'], { builtins: false });
    const { server, url: listening } = serveOverHttp(root);
    try {
      const url = await listening;
      await server.stderr.waitFor(
        /toolhost: bearer token required \(the project's tokens in \.toolhost\/serve-tokens\.json/,
      );
      const entry = await toolhostInProcess(['mcp-config', '--url', url, '--json', '--root', root]);
      expect(JSON.parse(entry.stdout)).toEqual({
        mcpServers: {
          toolhost: { type: 'http', url, headers: { Authorization: `Bearer ${projectToken(root)}` } },
        },
      });
      const text = await toolhostInProcess(['mcp-config', '--url', url, '--root', root]);
      expect(text.stdout).toContain(
        `claude mcp add --transport http toolhost ${url} --header 'Authorization: Bearer ${projectToken(root)}'`,
      );
      const client = new Client({ name: 'cli-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url), withToken(root)));
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['healthy_echo']);
      await client.close();
    } finally {
      expect(await server.stop('SIGTERM')).toBe(0);
      await dispose();
    }
  });

  it('--allow-unauthenticated on loopback serves without a token and says so loudly', async () => {
    const { root, dispose } = await project(['healthy'], { builtins: false });
    const { server, url: listening } = serveOverHttp(root, ['--allow-unauthenticated']);
    try {
      const url = await listening;
      await server.stderr.waitFor(/WARNING: NO AUTHENTICATION \(--allow-unauthenticated\)/);
      const client = new Client({ name: 'cli-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['healthy_echo']);
      await client.close();
    } finally {
      expect(await server.stop('SIGTERM')).toBe(0);
      await dispose();
    }
  });
});
