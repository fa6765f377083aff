import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { exists } from '../../util/stat.js';
import { parseCommand, UsageError } from '../args.js';
import { FLAGS } from '../flags.js';
import { shellWord, toolhostCommand } from '../invocation.js';
import { type Io, styleFor } from '../io.js';
import { resolveProject } from '../project.js';
import { exampleToolName, PLUGIN_ID, pluginSource, pluginTsconfig, testSource } from '../scaffold.js';
import { EXIT } from '../types.js';
import { shownPath } from '../view.js';

export async function scaffold(argv: readonly string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommand('new', argv, FLAGS.new.options, FLAGS.new.positionals);
  const [id = ''] = positionals;
  if (!PLUGIN_ID.test(id)) {
    throw new UsageError(
      `invalid plugin name ${JSON.stringify(id)}: use lower-case letters, digits, "_" or "-", starting with a letter or digit`,
    );
  }
  const tool = exampleToolName(id);
  if (tool.length > 64) {
    throw new UsageError(
      `plugin name ${JSON.stringify(id)} is too long: its tool ${tool} would pass 64 characters`,
    );
  }
  const project = await resolveProject(values, { forHost: false });
  const dir = path.join(project.root, 'plugins', id);
  if (await exists(dir)) {
    throw new UsageError(`${shownPath(dir)} already exists; choose another name or remove it`);
  }
  const files = [
    [path.join(dir, 'index.ts'), pluginSource(id)],
    [path.join(dir, 'test', `${id}.test.ts`), testSource(id)],
    [path.join(dir, 'tsconfig.json'), pluginTsconfig()],
  ] as const;
  await mkdir(path.join(dir, 'test'), { recursive: true });
  for (const [file, text] of files) await writeFile(file, text, { flag: 'wx' });
  const style = styleFor(io.out);
  const command = toolhostCommand();
  io.out.write(
    [
      `${style.green('created')} ${shownPath(files[0][0])}`,
      `${style.green('created')} ${shownPath(files[1][0])}`,
      `${style.green('created')} ${shownPath(files[2][0])}`,
      '',
      'Try it:',
      `  ${command} call ${tool} --input '{"name": "Ada"}'${project.root === process.cwd() ? '' : ` --root ${shownPath(project.root)}`}`,
      `  ${await testCommand(project.root, id)}`,
      '',
    ].join('\n'),
  );
  return EXIT.ok;
}

/**
 * How to run the scaffolded test: vitest from the project folder, where the test's imports
 * (`@toolhost/host`, `vitest`) resolve; a note instead when the project does not have them.
 */
async function testCommand(root: string, id: string): Promise<string> {
  const installed = async (name: string): Promise<boolean> => {
    for (let dir = root; ; dir = path.dirname(dir)) {
      if (await exists(path.join(dir, 'node_modules', name))) return true;
      if (path.dirname(dir) === dir) return false;
    }
  };
  const [host, vitest] = await Promise.all([installed('@toolhost/host'), installed('vitest')]);
  if (!host || !vitest) {
    return '(its test runs with vitest once the project has @toolhost/host and vitest in node_modules)';
  }
  const file = `plugins/${id}/test/${id}.test.ts`;
  return root === process.cwd()
    ? `npx vitest run ${file}`
    : `cd ${shellWord(shownPath(root))} && npx vitest run ${file}`;
}
