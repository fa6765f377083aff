/**
 * `ctx.fs.rm`, `mkdir`, `rename`, `appendFile` are confined like the rest of `ctx.fs`, every
 * failure carries a `code` plugin code can branch on, and a path written relative to the granted
 * folder gets a hint rather than a suggestion to grant the project root.
 */
import { mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  attackPlugin,
  attempts,
  expectHealthy,
  expectNoHostPaths,
  HEALTHY_SOURCE,
  reportOf,
  SMALL_LIMITS,
  useHarness,
} from './helpers.js';

const SECRET = 'top-secret-file-content';

describe('ctx.fs: the new operations, coded errors and hints', () => {
  const h = useHarness();
  let root: string;
  let outside: string;

  beforeEach(async () => {
    root = await h.project();
    outside = await h.project();
    await mkdir(path.join(root, 'data', 'sub'), { recursive: true });
    await mkdir(path.join(root, 'private'), { recursive: true });
    await writeFile(path.join(root, 'data', 'ok.txt'), 'inside');
    await writeFile(path.join(root, 'private', 'secret.txt'), SECRET);
    await writeFile(path.join(outside, 'secret.txt'), SECRET);
    await writeFile(path.join(root, 'toolhost.config.json'), '{}');
  });

  async function run(
    list: readonly string[],
    grants: { read?: string[]; write?: string[] } = { write: ['data'] },
  ) {
    const started = await h.start({
      root,
      plugins: {
        files: attackPlugin('files', attempts(list, 'code'), {
          permissions: `{ fs: { read: ['data'], write: ['data'] } }`,
        }),
        healthy: HEALTHY_SOURCE,
      },
      settings: { files: { grants: { fs: grants }, limits: { ...SMALL_LIMITS } } },
    });
    const out = reportOf<string[]>(await started.session.call('attack', {}));
    for (const line of out) expectNoHostPaths(line, root);
    await expectHealthy(started.session);
    return out;
  }

  it('mkdir, appendFile, rename and rm work inside the granted folder', async () => {
    const out = await run([
      `await ctx.fs.mkdir('data/a/b', { recursive: true });`,
      `await ctx.fs.appendFile('data/a/b/log.txt', 'one\\n'); await ctx.fs.appendFile('data/a/b/log.txt', 'two\\n');`,
      `await ctx.fs.rename('data/a/b/log.txt', 'data/moved.txt');`,
      `return await ctx.fs.readFile('data/moved.txt');`,
      `await ctx.fs.rm('data/a', { recursive: true });`,
      `await ctx.fs.rm('data/moved.txt');`,
      `await ctx.fs.rm('data/missing.txt', { force: true });`,
      `return await ctx.fs.readdir('data');`,
    ]);
    expect(out).toEqual([
      'ok: null',
      'ok: null',
      'ok: null',
      'ok: "one\\ntwo\\n"',
      'ok: null',
      'ok: null',
      'ok: null',
      'ok: ["ok.txt","sub/"]',
    ]);
  });

  it('failures carry a code: ENOENT, EISDIR, ENOTDIR, EEXIST, ENOTEMPTY, not-granted', async () => {
    await writeFile(path.join(root, 'data', 'sub', 'f.txt'), 'x');
    const out = await run([
      `return await ctx.fs.readFile('data/missing.txt');`,
      `return await ctx.fs.readFile('data/sub');`,
      `return await ctx.fs.readdir('data/ok.txt');`,
      `return await ctx.fs.mkdir('data/sub');`,
      `return await ctx.fs.rm('data/sub');`,
      `return await ctx.fs.rm('data/missing.txt');`,
      `return await ctx.fs.stat('data/missing.txt');`,
      `return await ctx.fs.readFile('private/secret.txt');`,
    ]);
    expect(out.map((line) => line.slice(0, line.indexOf(':')))).toEqual([
      'ENOENT',
      'EISDIR',
      'ENOTDIR',
      'EEXIST',
      'ENOTEMPTY',
      'ENOENT',
      'ENOENT',
      'not-granted',
    ]);
  });

  it('a path relative to the granted folder gets "did you mean", never a suggestion to grant the project root', async () => {
    const out = await run([
      `return await ctx.fs.readFile('ok.txt');`,
      `return await ctx.fs.writeFile('notes.txt', 'x');`,
    ]);
    expect(out[0]).toMatch(/^not-granted: .*relative to the project root.*did you mean "data\/ok\.txt"\?/);
    expect(out[1]).toMatch(/did you mean "data\/notes\.txt"\?/);
    for (const line of out) expect(line).not.toMatch(/\["\."\]|grant it at .*"\."/);
  });

  it('a name at the project root with no granted folder to suggest is refused without suggesting "."', async () => {
    const out = await run([`return await ctx.fs.readFile('toolhost.config.json');`], { read: [] });
    expect(out[0]).toMatch(/^not-granted: .*lies directly in the project root/);
    expect(out[0]).not.toContain('["."]');
  });

  it('rename cannot move a file out of the granted folder, nor bring one in, nor move the folder itself', async () => {
    await symlink(outside, path.join(root, 'data', 'out'));
    const out = await run([
      `return await ctx.fs.rename('data/ok.txt', '../stolen.txt');`,
      `return await ctx.fs.rename('data/ok.txt', 'private/ok.txt');`,
      `return await ctx.fs.rename('data/ok.txt', 'data/out/ok.txt');`,
      `return await ctx.fs.rename('private/secret.txt', 'data/secret.txt');`,
      `return await ctx.fs.rename('data', 'data2');`,
      `return await ctx.fs.rename('data/sub', '/tmp/sub');`,
    ]);
    for (const line of out) expect(line).toMatch(/^not-granted: /);
    expect(await readFile(path.join(root, 'data', 'ok.txt'), 'utf8')).toBe('inside');
    expect(await readdir(outside)).toEqual(['secret.txt']);
    expect(await readFile(path.join(root, 'private', 'secret.txt'), 'utf8')).toBe(SECRET);
  });

  it('rm of the granted folder itself (by any spelling) or through a link is refused; a link is removed as a link', async () => {
    await symlink(outside, path.join(root, 'data', 'out'));
    await symlink(path.join(root, 'data'), path.join(root, 'data', 'self'));
    const out = await run([
      `return await ctx.fs.rm('data', { recursive: true });`,
      `return await ctx.fs.rm('./data/', { recursive: true });`,
      `return await ctx.fs.rm('data/sub/..', { recursive: true });`,
      `return await ctx.fs.rm('data/out/secret.txt');`,
      `return await ctx.fs.rm('.', { recursive: true });`,
      `await ctx.fs.rm('data/out', { recursive: true }); await ctx.fs.rm('data/self', { recursive: true }); return 'links removed';`,
    ]);
    expect(out.slice(0, 5).every((line) => line.startsWith('not-granted: '))).toBe(true);
    expect(out[0]).toMatch(/granted folder "data" itself/);
    expect(out[5]).toBe('ok: "links removed"');
    expect(await readdir(outside)).toEqual(['secret.txt']);
    expect((await stat(path.join(root, 'data', 'ok.txt'))).isFile()).toBe(true);
  });

  it('mkdir and appendFile through a link that leads out of the granted folder are refused and create nothing there', async () => {
    await symlink(outside, path.join(root, 'data', 'out'));
    await symlink(path.join(outside, 'secret.txt'), path.join(root, 'data', 'secret-link.txt'));
    const out = await run([
      `return await ctx.fs.mkdir('data/out/made', { recursive: true });`,
      `return await ctx.fs.mkdir('data/../private/made');`,
      `return await ctx.fs.appendFile('data/secret-link.txt', 'pwned');`,
      `return await ctx.fs.appendFile('data/out/new.txt', 'pwned');`,
    ]);
    for (const line of out) expect(line).toMatch(/^not-granted: /);
    expect(await readdir(outside)).toEqual(['secret.txt']);
    expect(await readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe(SECRET);
  });

  it('stat of a control file or a file outside the grant is refused like a read', async () => {
    await symlink(path.join(root, 'toolhost.config.json'), path.join(root, 'data', 'config-link.json'));
    const out = await run([
      `return await ctx.fs.stat('toolhost.config.json');`,
      `return await ctx.fs.stat('data/config-link.json');`,
      `return await ctx.fs.stat('plugins/files/index.ts');`,
      `return await ctx.fs.stat('data/../toolhost.config.json');`,
    ]);
    for (const line of out) expect(line).toMatch(/^not-granted: /);
  });

  it('appendFile refuses to grow a file past fsMaxBytes (5 MiB by default)', async () => {
    const out = await run([
      `return await ctx.fs.appendFile('data/ok.txt', 'x'.repeat(3 * 1024 * 1024));`,
      `return await ctx.fs.appendFile('data/ok.txt', 'y'.repeat(3 * 1024 * 1024));`,
    ]);
    expect(out[0]).toBe('ok: null');
    expect(out[1]).toMatch(/^limit-exceeded: .*over the fsMaxBytes limit/);
    expect((await stat(path.join(root, 'data', 'ok.txt'))).size).toBe(6 + 3 * 1024 * 1024);
  });
});
