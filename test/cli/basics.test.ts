import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { outputFor, startProgress, styleFor } from '../../packages/host/src/cli/io.js';
import { ANSI, CLI, cleanEnv, project, REPO, startToolhost, toolhost } from './cli.js';

const COMMANDS = ['dev', 'list', 'call', 'serve', 'new', 'doctor', 'grant', 'mcp-config'];
/** An SGR (colour) sequence. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: detecting escapes is the point.
const COLOUR = /\x1b\[\d+(;\d+)*m/;

describe.concurrent('toolhost --help, --version and usage errors', () => {
  it('--version prints the version of @toolhost/host', async () => {
    const { version } = JSON.parse(readFileSync(path.join(REPO, 'packages/host/package.json'), 'utf8'));
    expect(await toolhost(['--version'])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('--help lists every command; each command has its own --help', async () => {
    const main = await toolhost(['--help']);
    expect(main.code).toBe(0);
    for (const name of COMMANDS) expect(main.stdout).toMatch(new RegExp(`^ {2}${name} +\\S`, 'm'));
    const runs = await Promise.all(COMMANDS.map((name) => toolhost([name, '--help'])));
    runs.forEach((run, i) => {
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(new RegExp(`^Usage: toolhost ${COMMANDS[i]}`));
      expect(run.stdout).toContain('--root DIR');
      expect(run.stdout).toContain('--config FILE');
    });
    expect(runs[2]?.stdout).toContain('--input-file FILE');
    expect(runs[3]?.stdout).toContain('--no-watch');
  });

  it('serve --help names the sandbox serve uses by default: a jailed executor process, stdio and HTTP alike', async () => {
    const serve = await toolhost(['serve', '--help']);
    expect(serve.stdout).toContain(
      'Plugin isolates run in an executor process, jailed where the system allows',
    );
    expect(serve.stdout).toContain('With --sandbox inline they run in the serve process itself (one wall:');
    expect(serve.stdout).toContain('process (default): in a jailed executor process');
  });

  it('an unknown command, an unknown flag on every command, or no command at all: exit 2', async () => {
    expect(await toolhost(['frobnicate'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'toolhost: unknown command "frobnicate" (see toolhost --help)\n',
    });
    const runs = await Promise.all(COMMANDS.map((name) => toolhost([name, '--frob'])));
    runs.forEach((run, i) => {
      expect(run).toEqual({
        code: 2,
        stdout: '',
        stderr: `toolhost: ${COMMANDS[i]}: unknown option --frob (see toolhost ${COMMANDS[i]} --help)\n`,
      });
    });
    const none = await toolhost([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^Usage: toolhost <command>/);
    const port = await toolhost(['serve', '--http', 'eighty']);
    expect(port).toMatchObject({ code: 2, stderr: expect.stringMatching(/--http must be a port number/) });
  });
});

describe('colour and progress', () => {
  it('colour only on a terminal, never with NO_COLOR; progress only on a terminal', () => {
    const written: string[] = [];
    const stream = { isTTY: true, write: (text: string) => written.push(text) > 0 };
    expect(outputFor(stream, {}).color).toBe(true);
    expect(outputFor(stream, { NO_COLOR: '1' }).color).toBe(false);
    expect(outputFor(stream, { NO_COLOR: '' }).color).toBe(true); // present but empty does not count
    expect(outputFor({ write: stream.write }, {}).color).toBe(false);
    expect(styleFor(outputFor(stream, { NO_COLOR: '1' })).red('x')).toBe('x');

    startProgress(outputFor({ write: stream.write }, {}), 'quiet').stop();
    expect(written).toEqual([]);
    startProgress(outputFor(stream, {}), 'loading plugins').stop();
    expect(written.join('')).toMatch(/loading plugins \d\.\ds/);
  });

  const hasScript = process.platform === 'linux' && spawnSync('script', ['--version']).status === 0;

  it.skipIf(!hasScript)(
    'on a real terminal (util-linux script): colour unless NO_COLOR, a progress line',
    async () => {
      const { root, dispose } = await project(['healthy'], { builtins: false });
      try {
        const onTty = (env: NodeJS.ProcessEnv) =>
          spawnSync(
            'script',
            ['-qfec', `'${process.execPath}' '${CLI}' list --root '${root}'`, '/dev/null'],
            {
              env,
              encoding: 'utf8',
              timeout: 60_000,
            },
          );
        const coloured = onTty(cleanEnv());
        expect(coloured.status).toBe(0);
        expect(coloured.stdout).toMatch(COLOUR);
        expect(coloured.stdout).toContain('loading plugins');
        const plain = onTty(cleanEnv({ NO_COLOR: '1' }));
        expect(plain.status).toBe(0);
        expect(plain.stdout).toContain('healthy_echo');
        expect(plain.stdout).not.toMatch(COLOUR);
      } finally {
        await dispose();
      }
    },
  );

  it('no escape sequences at all through a pipe', async () => {
    const { root, dispose } = await project(['healthy', 'syntax-error']);
    try {
      const runs = await Promise.all([
        toolhost(['list', '--root', root]),
        toolhost(['doctor', '--root', root]),
      ]);
      for (const run of runs) expect(run.stdout + run.stderr).not.toMatch(ANSI);
    } finally {
      await dispose();
    }
  });
});

describe("sandbox: 'inline'", () => {
  it('re-executes itself with --no-node-snapshot, passing on its exit code and signals', async () => {
    const { root, dispose } = await project(['healthy'], { sandbox: 'inline', builtins: false });
    try {
      const call = await toolhost(['call', 'healthy_echo', '--input', '{"text": "inline"}', '--root', root]);
      expect(call).toEqual({ code: 0, stdout: 'echo: inline\n', stderr: '' });
      const failed = await toolhost(['call', 'healthy_echo', '--root', root]);
      expect(failed.code).toBe(1);
      if (process.platform !== 'linux') return;
      // The process a user started spawned one Node child that carries the flag.
      const server = startToolhost(['serve', '--http', '0', '--no-watch', '--root', root]);
      try {
        await server.stderr.waitFor(/MCP streamable HTTP at http/);
        const pid = server.child.pid ?? 0;
        const children = (await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8')).trim().split(/\s+/);
        expect(children).toHaveLength(1);
        const cmdline = (await readFile(`/proc/${children[0]}/cmdline`, 'utf8')).split('\0');
        expect(cmdline.slice(0, 3)).toEqual([process.execPath, '--no-node-snapshot', CLI]);
      } finally {
        expect(await server.stop('SIGTERM')).toBe(0);
      }
    } finally {
      await dispose();
    }
  });
});
