import { spawn } from 'node:child_process';
import { mkdir, readFile, symlink } from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, project, REPO, toolhost } from './cli.js';

/** Runs a command to completion; resolves with its exit code and output. */
function runToEnd(
  command: string,
  args: string[],
  cwd: string,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      env: cleanEnv({ NO_COLOR: '1' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command} ${args.join(' ')} did not finish in 60 s:\n${output}`));
    }, 60_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('toolhost new', () => {
  let root: string;
  let dispose: () => Promise<void>;

  beforeAll(async () => {
    ({ root, dispose } = await project());
    // A project that installed @toolhost/host and vitest: its node_modules links to the checkout's.
    await mkdir(path.join(root, 'node_modules'));
    for (const name of ['@toolhost', 'vitest']) {
      await symlink(path.join(REPO, 'node_modules', name), path.join(root, 'node_modules', name), 'dir');
    }
  });
  afterAll(() => dispose());

  it('scaffolds a plugin whose tool can be called and whose test passes as created', async () => {
    const created = await toolhost(['new', 'greeter', '--root', root]);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    expect(created.stdout).toContain(
      `created ${path.join(path.relative(REPO, root), 'plugins/greeter/index.ts')}`,
    );
    expect(created.stdout).toContain('toolhost call greeter_hello');
    // The test runs from the project, where its imports resolve (run below, as printed).
    expect(created.stdout).toContain(
      `  cd ${path.relative(REPO, root)} && npx vitest run plugins/greeter/test/greeter.test.ts\n`,
    );
    const source = await readFile(path.join(root, 'plugins/greeter/index.ts'), 'utf8');
    expect(source).toContain("id: 'greeter'");
    expect(source).toMatch(/execute: \(\{ name, times \}, ctx\) =>/);

    const [call, test] = await Promise.all([
      toolhost(['call', 'greeter_hello', '--input', '{"name": "Ada", "times": 2}', '--root', root]),
      runToEnd(process.execPath, [path.join(REPO, 'node_modules/vitest/vitest.mjs'), 'run'], root),
    ]);
    // The tool's ctx.log line goes to stderr; the result alone to stdout.
    expect(call).toEqual({
      code: 0,
      stdout: 'Hello, Ada!\nHello, Ada!\n',
      stderr: '[info] greeting Ada 2 time(s)\n',
    });
    expect(test.output).toMatch(/plugins\/greeter\/test\/greeter\.test\.ts \(3 tests\)/);
    expect(test.code).toBe(0);
  });

  it('refuses to overwrite an existing folder, and names that are not plugin ids (exit 2)', async () => {
    await mkdir(path.join(root, 'plugins', 'taken'));
    const taken = await toolhost(['new', 'taken', '--root', root]);
    expect(taken.code).toBe(2);
    expect(taken.stderr).toMatch(
      /^toolhost: new: .*plugins\/taken already exists; choose another name or remove it\n$/,
    );
    const names = ['Upper', 'has space', 'dots.no', '_private', 'x'.repeat(65), 'y'.repeat(60)];
    const runs = await Promise.all(names.map((name) => toolhost(['new', name, '--root', root])));
    for (const run of runs) {
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(
        /^toolhost: new: (invalid plugin name ".*": use lower-case|plugin name .* is too long)/,
      );
    }
    const missing = await toolhost(['new', '--root', root]);
    expect(missing).toMatchObject({
      code: 2,
      stderr: 'toolhost: new: missing NAME (see toolhost new --help)\n',
    });
  });

  it('prints a call command that runs where it was typed, never a bare npx toolhost outside the checkout', async () => {
    const outside = await project();
    try {
      const created = await toolhost(['new', 'hi'], { cwd: outside.root });
      expect(created.code).toBe(0);
      const line =
        created.stdout
          .split('\n')
          .find((l) => l.includes(' call hi_hello '))
          ?.trim() ?? '';
      expect(line).not.toMatch(/^npx /);
      const ran = await runToEnd('/bin/sh', ['-c', line], outside.root);
      expect(ran).toEqual({ code: 0, output: expect.stringContaining('Hello, Ada!') });
      // No @toolhost/host or vitest in that project: no vitest command that could not run.
      expect(created.stdout).not.toContain('vitest run');
      expect(created.stdout).toContain('once the project has @toolhost/host and vitest in node_modules');
      const inside = await toolhost(['new', 'there', '--root', outside.root]);
      expect(inside.stdout).toContain('  npx toolhost call there_hello');
    } finally {
      await outside.dispose();
    }
  });
});
