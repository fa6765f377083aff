/** `toolhost call` beyond the local happy path: a failed plugin's tool, a running server, stdin. */
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, project, projectToken, REPO, startToolhost, toolhost } from './cli.js';

const URL_LINE = /MCP (http:\/\/127\.0\.0\.1:\d+\/mcp) \(streamable HTTP\)/;

describe('toolhost call', () => {
  it('on a tool of a plugin that failed to build, names the plugin and why (not only "Unknown tool")', async () => {
    const { root, dispose } = await project(['healthy', 'syntax-error'], { builtins: false });
    try {
      const run = await toolhost(['call', 'syntax-error_check', '--root', root]);
      expect(run.code).toBe(1);
      expect(run.stdout).toContain('Unknown tool "syntax-error_check"');
      expect(run.stdout).toMatch(
        /It likely belongs to plugin "syntax-error", which did not load:\n {2}plugin "syntax-error" failed to load: plugin "syntax-error" does not build: index\.ts:\d+/,
      );
      // The hint is a doctor command for this project, runnable as printed where call ran.
      const doctor = /^Run (.+) for the details\.$/m.exec(run.stdout)?.[1] ?? '';
      const ran = await new Promise<string>((resolve) => {
        execFile('/bin/sh', ['-c', doctor], { cwd: REPO }, (_error, stdout) => resolve(stdout));
      });
      expect(ran).toMatch(/plugin syntax-error: does not load\n.*does not build/);
      const other = await toolhost(['call', 'anything', '--root', root]);
      expect(other.stdout).toMatch(
        /It may belong to a plugin that did not load.*\n {2}plugin "syntax-error" failed to load/,
      );
    } finally {
      await dispose();
    }
  });

  it('--input-file - reads the input from stdin', async () => {
    const { root, dispose } = await project(['healthy'], { builtins: false });
    try {
      const run = await toolhost(['call', 'healthy_echo', '--input-file', '-', '--root', root], {
        stdin: '{"text": "from stdin"}',
      });
      expect(run).toEqual({ code: 0, stdout: 'echo: from stdin\n', stderr: '' });
    } finally {
      await dispose();
    }
  });

  it('--url calls the running server over streamable HTTP instead of starting a host', async () => {
    const { root, dispose } = await project(['healthy'], { builtins: false });
    const dev = startToolhost(['dev', '--port', '0', '--root', root]);
    try {
      const [, url = ''] = await dev.stdout.waitFor(URL_LINE);
      // An empty folder as --root would have no tool: the answer can only come from the server.
      const run = await toolhost(['call', 'healthy_echo', '--url', url, '--input', '{"text":"remote"}'], {
        cwd: path.dirname(root),
        env: cleanEnv({ TOOLHOST_TOKEN: projectToken(root) }),
      });
      expect(run).toEqual({ code: 0, stdout: 'echo: remote\n', stderr: '' });
      // Without a token (none in the folder, none given) it says where one comes from.
      const anonymous = await toolhost(['call', 'healthy_echo', '--url', url], { cwd: path.dirname(root) });
      expect(anonymous.code).not.toBe(0);
      expect(anonymous.stderr).toMatch(
        /wants a bearer token and none was found: pass --token, set TOOLHOST_TOKEN/,
      );
      await dev.stdout.waitFor(/\] healthy_echo ok in \d+ ms/);

      const json = await toolhost([
        'call',
        'healthy_echo',
        '--url',
        url,
        '--root',
        root,
        '--json',
        '--input',
        '{"text":"j"}',
      ]);
      expect(JSON.parse(json.stdout)).toEqual({
        content: [{ type: 'text', text: 'echo: j' }],
        isError: false,
      });

      const unknown = await toolhost(['call', 'nope', '--url', url, '--token', projectToken(root)]);
      expect(unknown.code).toBe(1);
      expect(unknown.stdout).toMatch(/^Unknown tool "nope"/);
    } finally {
      expect(await dev.stop('SIGINT')).toBe(0);
      await dispose();
    }
  });

  it('--url to nothing says what it tried', async () => {
    const run = await toolhost(['call', 'x', '--url', 'http://127.0.0.1:9/mcp']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /cannot reach an MCP server at http:\/\/127\.0\.0\.1:9\/mcp: .*is toolhost dev or serve --http running\?/,
    );
  });
});
