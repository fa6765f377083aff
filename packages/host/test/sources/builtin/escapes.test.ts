import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, nodeScript, type Sandbox } from './helpers.js';

/**
 * Every built-in, aimed at the outside through every kind of escape. Each case would reach
 * `outside/` without confinement; each must fail with the escape message and leave `outside/`
 * byte for byte as it was (no file read into the result, none written, none created).
 */
let sb: Sandbox;
beforeEach(async () => {
  sb = await makeSandbox();
});
afterEach(async () => {
  await sb.cleanup();
});

type Target = (sb: Sandbox) => string;

/** Escapes aimed at a file. */
const fileTargets: Record<string, Target> = {
  'a ../ path': () => '../outside/secret.txt',
  'an absolute path outside': (s) => path.join(s.outside, 'secret.txt'),
  'a symlink to an outside file': () => 'link-file',
  'a symlink to an outside directory as an intermediate component': () => 'link-dir/secret.txt',
  'a dangling symlink pointing outside': () => 'dangling',
  'a path that climbs out after descending': () => 'sub/../../outside/secret.txt',
};

/** Escapes aimed at a directory. */
const dirTargets: Record<string, Target> = {
  'a ../ path': () => '..',
  'an absolute path outside': (s) => s.outside,
  'a symlink to an outside directory': () => 'link-dir',
  'a symlink to an outside directory as an intermediate component': () => 'link-dir/dir',
  'a dangling symlink pointing outside': () => 'dangling',
};

const tools: Record<string, { targets: Record<string, Target>; input: (target: string) => unknown }> = {
  read: { targets: fileTargets, input: (p) => ({ path: p }) },
  write: { targets: fileTargets, input: (p) => ({ path: p, content: 'pwned' }) },
  edit: { targets: fileTargets, input: (p) => ({ path: p, oldText: 'TOP SECRET', newText: 'pwned' }) },
  ls: { targets: dirTargets, input: (p) => ({ path: p }) },
  grep: { targets: fileTargets, input: (p) => ({ pattern: 'SECRET', path: p }) },
  'grep (directory)': { targets: dirTargets, input: (p) => ({ pattern: 'SECRET', path: p }) },
  exec: {
    targets: dirTargets,
    input: (cwd) => nodeScript("require('fs').writeFileSync('pwned.txt', 'pwned')", cwd),
  },
};

describe.each(Object.entries(tools))('%s refuses to leave the workspace', (label, { targets, input }) => {
  const name = label.split(' ')[0] ?? label;
  it.each(Object.entries(targets))('through %s', async (_case, target) => {
    const before = await sb.snapshotOutside();
    const userPath = target(sb);
    await expect(sb.call(name, input(userPath), { exec: { enabled: true } })).rejects.toThrow(
      `path ${JSON.stringify(userPath)} is outside the workspace root`,
    );
    expect(await sb.snapshotOutside()).toEqual(before);
  });
});
