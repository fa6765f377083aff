import { writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallJson } from '../../packages/host/src/cli/types.js';
import { project, REPO, toolhost, toolhostInProcess } from './cli.js';

describe('toolhost call', () => {
  let root: string;
  let dispose: () => Promise<void>;

  beforeAll(async () => {
    ({ root, dispose } = await project(['healthy', { from: path.join(REPO, 'plugins/text') }]));
  });
  afterAll(() => dispose());

  describe.concurrent('results', () => {
    it('prints the text of the result and exits 0', async () => {
      const run = await toolhostInProcess([
        'call',
        'healthy_echo',
        '--input',
        '{"text":"hi"}',
        '--root',
        root,
      ]);
      expect(run).toEqual({ code: 0, stdout: 'echo: hi\n', stderr: '' });
    });

    it('--json prints the ToolResult, structuredContent included', async () => {
      const { code, stdout } = await toolhostInProcess([
        'call',
        'text_stats',
        '--json',
        '--input',
        '{"text":"two words"}',
        '--root',
        root,
      ]);
      expect(code).toBe(0);
      expect(JSON.parse(stdout) as CallJson).toEqual({
        content: [{ type: 'text', text: '2 words, 1 lines, 9 characters' }],
        isError: false,
        structuredContent: { characters: 9, words: 2, lines: 1 },
      });
    });

    it('--input-file reads the input from a file', async () => {
      const file = path.join(root, 'input.json');
      await writeFile(file, '{"text": "from a file"}');
      const run = await toolhostInProcess(['call', 'healthy_echo', '--input-file', file, '--root', root]);
      expect(run).toEqual({ code: 0, stdout: 'echo: from a file\n', stderr: '' });
    });

    it('exits 1 with the message for the model when the result is an error', async () => {
      const invalid = await toolhostInProcess([
        'call',
        'healthy_echo',
        '--input',
        '{"text": 42}',
        '--root',
        root,
      ]);
      expect(invalid.code).toBe(1);
      expect(invalid.stdout).toMatch(/Invalid input for tool "healthy_echo".*text/);
      const json = await toolhostInProcess(['call', 'no_such_tool', '--json', '--root', root]);
      expect(json.code).toBe(1);
      expect(JSON.parse(json.stdout)).toEqual({
        content: [{ type: 'text', text: expect.stringContaining('Unknown tool "no_such_tool"') }],
        isError: true,
      });
    });
  });

  describe.concurrent('usage errors exit 2 with one line on stderr', () => {
    const usage = async (args: string[], message: RegExp) => {
      const { code, stdout, stderr } = await toolhost(args, { cwd: root });
      expect({ code, stdout }).toEqual({ code: 2, stdout: '' });
      expect(stderr).toMatch(message);
      expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    };

    it('an unknown flag', () =>
      usage(
        ['call', 'healthy_echo', '--bogus'],
        /^toolhost: call: unknown option --bogus \(see toolhost call --help\)/,
      ));
    it('input that is not JSON', () =>
      usage(
        ['call', 'healthy_echo', '--input', '{text: hi}'],
        /^toolhost: call: --input is not valid JSON: /,
      ));
    it('an input file that is not JSON, or not there', async () => {
      await writeFile(path.join(root, 'bad.json'), 'not json');
      await usage(
        ['call', 'healthy_echo', '--input-file', 'bad.json'],
        /--input-file bad\.json is not valid JSON/,
      );
      await usage(
        ['call', 'healthy_echo', '--input-file', 'nope.json'],
        /--input-file nope\.json: no such file/,
      );
    });
    it('a root that does not exist', () =>
      usage(['call', 'healthy_echo', '--root', path.join(root, 'nope')], /--root .*nope: no such directory/));
    it('a --config file that does not exist', () =>
      usage(['call', 'healthy_echo', '--config', 'missing.json'], /--config missing\.json: no such file/));
    it('no tool name, or two', async () => {
      await usage(['call'], /^toolhost: call: missing NAME/);
      await usage(['call', 'a', 'b'], /^toolhost: call: unexpected argument "b"/);
    });
    it('both --input and --input-file, or a flag without its value', async () => {
      await usage(
        ['call', 'x', '--input', '{}', '--input-file', 'f'],
        /give --input or --input-file, not both/,
      );
      await usage(['call', 'x', '--input'], /--input needs a value/);
    });
  });
});
