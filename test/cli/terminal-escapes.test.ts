/**
 * Text from plugins, servers, skills and models reaches the person at the terminal through the
 * CLI. None of it may be interpreted by the terminal: no clear-screen, window title, clipboard
 * write (OSC 52), erased warning line, overwritten line or reordered text. Each command prints it
 * with its control characters escaped; `--json` stays JSON with the exact values.
 */
import { spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallJson, ListJson } from '../../packages/host/src/cli/types.js';
import { CLI, cleanEnv, project, startToolhost, toolhost, withToken } from './cli.js';

/** A control character a terminal would act on: C0 but tab and newline (and CR before LF), DEL, C1, bidi controls. */
const RAW =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
  /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]|\r(?!\n)/u;

/** What the fixture's texts look like once escaped: each sequence shown, none acted on. */
const SHOWN = [
  'clear\\x1b[2J\\x1b[H',
  'title\\x1b]0;pwned\\x07',
  'clip\\x1b]52;c;cHduZWQ=\\x07',
  'up\\x1b[1A\\x1b[2K',
  'cr\\x0doverwrite',
  'bs\\x08\\x08',
  'c1\\u009b2J',
  'osc\\u009d0;t\\u009c',
  'del\\u007f',
  'bidi\\u202eevil\\u202c',
  'iso\\u2066x\\u2069',
];
const ATTACK_START = 'clear\x1b[2J\x1b[H title\x1b]0;pwned\x07';

function expectInert(text: string, what: string): void {
  const raw = RAW.exec(text);
  expect(raw, `${what} holds ${JSON.stringify(raw?.[0])} raw at ${raw?.index}`).toBeNull();
}

function expectShown(text: string): void {
  for (const shown of SHOWN) expect(text).toContain(shown);
}

/** A plugin folder whose very name carries sequences (it fails to load, and is listed by name). */
const EVIL_FOLDER = 'evil\x1b]0;folder\x07\u009b2J\u202e';
const SKILL_DESCRIPTION = `Describes \x1b[2J\x1b]52;c;eA==\x07 and \u009b\u202eflipped`;

describe('text from plugins and skills reaches the terminal inert', () => {
  let root: string;
  let dispose: () => Promise<void>;

  beforeAll(async () => {
    ({ root, dispose } = await project(['escapes'], { builtins: false }));
    await mkdir(path.join(root, 'plugins', EVIL_FOLDER));
    await writeFile(path.join(root, 'plugins', EVIL_FOLDER, 'index.ts'), 'export default {');
    await mkdir(path.join(root, 'skills', 'escapes'), { recursive: true });
    await writeFile(
      path.join(root, 'skills', 'escapes', 'SKILL.md'),
      `---\nname: escapes\ndescription: ${JSON.stringify(SKILL_DESCRIPTION)}\n---\nDo it.\n`,
    );
  });
  afterAll(() => dispose());

  it.each([
    ['without NO_COLOR', cleanEnv()],
    ['with NO_COLOR', cleanEnv({ NO_COLOR: '1' })],
  ])(
    'list, %s: names, descriptions, diagnostics and skills show their sequences escaped',
    async (_case, env) => {
      const { code, stdout, stderr } = await toolhost(['list', '--root', root], { env });
      expect(code).toBe(0);
      expectInert(stdout, 'stdout');
      expectInert(stderr, 'stderr');
      expect(stdout).toContain('escapes_say');
      expect(stdout).toContain('Says things clear\\x1b[2J\\x1b[H title\\x1b]0;pwned\\x07');
      expect(stdout).toContain('evil\\x1b]0;folder\\x07\\u009b2J\\u202e');
      expect(stdout).toContain('Describes \\x1b[2J\\x1b]52;c;eA==\\x07 and \\u009b\\u202eflipped');
    },
  );

  it('list --json is JSON with the exact texts, and holds no raw C1, DEL or bidi control', async () => {
    const { code, stdout } = await toolhost(['list', '--json', '--root', root]);
    expect(code).toBe(0);
    expectInert(stdout, 'stdout');
    const json = JSON.parse(stdout) as ListJson;
    const say = json.visible.find((tool) => tool.name === 'escapes_say');
    expect(say?.description.startsWith(`Says things ${ATTACK_START}`)).toBe(true);
    expect(say?.description).toContain('\u009b2J');
    expect(say?.description).toContain('\u202eevil');
    expect(json.plugins.map((p) => p.id)).toContain(EVIL_FOLDER);
    expect(json.skills.find((s) => s.name === 'escapes')?.description).toBe(SKILL_DESCRIPTION);
  });

  it('doctor shows the failed plugin and its diagnostics escaped', async () => {
    const { stdout, stderr } = await toolhost(['doctor', '--root', root]);
    expectInert(stdout, 'stdout');
    expectInert(stderr, 'stderr');
    expect(stdout).toContain('plugin evil\\x1b]0;folder\\x07\\u009b2J\\u202e: does not load');
  });

  it('call shows a result, its log lines and an error escaped; --json keeps the exact text', async () => {
    const said = await toolhost(['call', 'escapes_say', '--root', root]);
    expect(said.code).toBe(0);
    expectInert(said.stdout, 'stdout');
    expectInert(said.stderr, 'stderr');
    expect(said.stdout.startsWith('result ')).toBe(true);
    expectShown(said.stdout);
    expect(said.stderr).toContain('[warn] log clear\\x1b[2J');
    expectShown(said.stderr);

    const failed = await toolhost(['call', 'escapes_fail', '--root', root]);
    expect(failed.code).toBe(1);
    expectInert(failed.stdout, 'stdout');
    expectShown(failed.stdout);

    const json = await toolhost(['call', 'escapes_say', '--json', '--root', root]);
    expectInert(json.stdout, 'stdout');
    const parsed = JSON.parse(json.stdout) as CallJson;
    expect(parsed.content[0]).toMatchObject({ type: 'text' });
    expect((parsed.content[0] as { text: string }).text.startsWith(`result ${ATTACK_START}`)).toBe(true);
  });

  it('dev shows each call’s log lines and its error escaped', async () => {
    const dev = startToolhost(['dev', '--port', '0', '--root', root]);
    try {
      const [, url = ''] = await dev.stdout.waitFor(
        /MCP (http:\/\/127\.0\.0\.1:\d+\/mcp) \(streamable HTTP\)/,
      );
      // In the plan printed at start, or in the rebuild that adds the plugin once it has landed.
      await dev.stdout.waitFor(/ {2}escapes_say +plugin|added escapes_fail, escapes_say/);
      const client = new Client({ name: 'escapes-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url), withToken(root)));
      try {
        await client.callTool({ name: 'escapes_say', arguments: {} });
        await client.callTool({ name: 'escapes_fail', arguments: {} });
      } finally {
        await client.close();
      }
      await dev.stdout.waitFor(/escapes_fail tool-error in \d+ ms: .*\n/);
      const text = dev.stdout.text;
      expectInert(text, 'stdout');
      expectInert(dev.stderr.text, 'stderr');
      expect(text).toMatch(/escapes_say \[warn\] log clear\\x1b\[2J/);
      expect(text).toMatch(
        /escapes_fail tool-error in \d+ ms: .*error clear\\x1b\[2J\\x1b\[H title\\x1b\]0;pwned\\x07/,
      );
    } finally {
      expect(await dev.stop('SIGINT')).toBe(0);
    }
  });

  const hasScript = process.platform === 'linux' && spawnSync('script', ['--version']).status === 0;

  it.skipIf(!hasScript)('on a real terminal the CLI keeps its own colours and escapes the rest', () => {
    const run = spawnSync(
      'script',
      ['-qfec', `'${process.execPath}' '${CLI}' list --root '${root}'`, '/dev/null'],
      {
        env: cleanEnv(),
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(run.status).toBe(0);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the CLI's own colour sequences.
    const colours = /\x1b\[(?:1|2|22|31|32|33|36|39)m/g;
    expect(run.stdout).toMatch(colours);
    // What is left once the CLI's own colours and progress line (`\r` + erase) are taken out.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the CLI's own progress line.
    const rest = run.stdout.replace(colours, '').replace(/\r\x1b\[K/g, '');
    expectInert(rest, 'the terminal');
    expect(rest).toContain('Says things clear\\x1b[2J');
  });
});
