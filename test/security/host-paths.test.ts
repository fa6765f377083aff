/**
 * No error a model reads names a host path. Node's own error messages carry the absolute path of
 * the file they failed on (`EMFILE: too many open files, open '/home/…/notes.txt'`): every way such
 * an error reaches a tool result — a built-in's file-system error that is not one of the usual
 * codes, an in-process tool that lets one escape, a host out of file descriptors — must say what
 * failed with the path the model wrote, or none.
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { defineTool } from '@toolhost/plugin-sdk';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { expectNoHostPaths, REPO_DIR, textOf, useHarness } from './helpers.js';

describe('host paths never reach a tool result', () => {
  const h = useHarness();

  it('a built-in hit by a file-system error it has no words for (ENAMETOOLONG) says so without the host path', async () => {
    const { root, session } = await h.start({ plugins: {}, builtins: {} });
    const outcome = await session.call('read', { path: `${'a'.repeat(300)}/notes.txt` });
    expect(outcome.result.isError).toBe(true);
    const text = textOf(outcome);
    expect(text).toMatch(/ENAMETOOLONG/);
    expectNoHostPaths(text, root);
  });

  it('an in-process tool whose Node error escapes (it carries the absolute path) is reported without it', async () => {
    const { root, host, session } = await h.start({ plugins: {} });
    host.addTool(
      defineTool({
        name: 'raw_read',
        description: 'Reads a file with no care for its errors',
        input: z.object({}),
        execute: async () => readFile(path.join(root, 'missing', 'notes.txt'), 'utf8'),
      }),
    );
    const outcome = await session.call('raw_read', {});
    expect(outcome.result.isError).toBe(true);
    const text = textOf(outcome);
    expect(text).toMatch(/ENOENT/);
    expectNoHostPaths(text, root);
    expect(text).not.toContain('/missing/notes.txt');
  });

  it.runIf(process.platform === 'linux')(
    'a host out of file descriptors (EMFILE) answers read with the code and no host path',
    async () => {
      const root = await h.project();
      await writeFile(path.join(root, 'notes.txt'), 'hello');
      // A child with few descriptors: it starts a host, takes every descriptor left, then reads.
      const script = path.join(root, 'emfile.mjs');
      const entry = path.join(REPO_DIR, 'packages/host/dist/index.js');
      await writeFile(
        script,
        `import { openSync } from 'node:fs';
import { createHost, resultText } from ${JSON.stringify(entry)};
const host = await createHost({ root: ${JSON.stringify(root)}, configFile: false, watch: false, cache: false, sandbox: 'inline' });
const session = host.session();
const held = [];
try { for (;;) held.push(openSync('/dev/null', 'r')); } catch (error) { if (error.code !== 'EMFILE') throw error; }
const { result } = await session.call('read', { path: 'notes.txt' });
process.stdout.write(JSON.stringify({ isError: result.isError === true, text: resultText(result) }));
process.exit(0);
`,
      );
      const { stdout, stderr } = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) =>
        execFile(
          '/bin/sh',
          ['-c', `ulimit -n 128 && exec "${process.execPath}" --no-node-snapshot "${script}"`],
          { cwd: root },
          (error, stdout, stderr) =>
            error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve({ stdout, stderr }),
        ),
      );
      const reply = JSON.parse(stdout) as { isError: boolean; text: string };
      expect(reply.isError, stderr).toBe(true);
      expect(reply.text).toMatch(/EMFILE/);
      expectNoHostPaths(reply.text, root);
    },
  );
});
