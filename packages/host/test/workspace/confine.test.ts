import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isWorkspaceEscapeError, resolveInside, WorkspaceEscapeError } from '../../src/workspace/confine.js';
import { openForRead, readTextFile, writeTextFile } from '../../src/workspace/files.js';
import { makeSandbox, type Sandbox, SECRET } from '../sources/builtin/helpers.js';

let sb: Sandbox;
let rootReal: string;
beforeEach(async () => {
  sb = await makeSandbox();
  rootReal = await fs.realpath(sb.root);
});
afterEach(async () => {
  await sb.cleanup();
});

describe('resolveInside', () => {
  it('resolves relative paths, absolute paths inside, and .. that stays inside', async () => {
    await fs.mkdir(path.join(sb.root, 'sub'));
    expect(await resolveInside(sb.root, 'sub/a.txt')).toBe(path.join(rootReal, 'sub', 'a.txt'));
    expect(await resolveInside(sb.root, path.join(sb.root, 'a.txt'))).toBe(path.join(rootReal, 'a.txt'));
    expect(await resolveInside(sb.root, 'sub/../a.txt')).toBe(path.join(rootReal, 'a.txt'));
    expect(await resolveInside(sb.root, '.')).toBe(rootReal);
  });

  it('returns missing paths (and missing parents) under their real ancestor', async () => {
    expect(await resolveInside(sb.root, 'new/dir/file.txt')).toBe(
      path.join(rootReal, 'new', 'dir', 'file.txt'),
    );
  });

  it('follows links that stay inside, including dangling ones, to their real target', async () => {
    await fs.mkdir(path.join(sb.root, 'real-dir'));
    await fs.symlink('real-dir', path.join(sb.root, 'alias'));
    await fs.symlink('real-dir/missing.txt', path.join(sb.root, 'to-missing'));
    expect(await resolveInside(sb.root, 'alias/x.txt')).toBe(path.join(rootReal, 'real-dir', 'x.txt'));
    expect(await resolveInside(sb.root, 'to-missing')).toBe(path.join(rootReal, 'real-dir', 'missing.txt'));
  });

  it('judges a relative link from its real directory, not the path written to reach it', async () => {
    // a → outside/dir and a/up → "../x": read from the written path that is root/x, but the kernel
    // follows it from outside/dir, to outside/x.
    await fs.symlink(path.join(sb.outside, 'dir'), path.join(sb.root, 'a'));
    await fs.symlink('../x', path.join(sb.outside, 'dir', 'up'));
    await expect(resolveInside(sb.root, 'a/up')).rejects.toBeInstanceOf(WorkspaceEscapeError);
  });

  it('accepts a root that is itself a symlink, with absolute paths through either name', async () => {
    const alias = path.join(sb.base, 'root-alias');
    await fs.symlink(sb.root, alias);
    expect(await resolveInside(alias, 'a.txt')).toBe(path.join(rootReal, 'a.txt'));
    expect(await resolveInside(alias, path.join(alias, 'a.txt'))).toBe(path.join(rootReal, 'a.txt'));
    expect(await resolveInside(alias, path.join(rootReal, 'a.txt'))).toBe(path.join(rootReal, 'a.txt'));
    await expect(resolveInside(alias, 'link-file')).rejects.toThrow('is outside the workspace root');
  });

  it.each([
    ['..', 'is outside the workspace root'],
    ['../outside/secret.txt', 'is outside the workspace root'],
    ['/etc/passwd', 'is outside the workspace root'],
    ['link-file', 'leads through a symbolic link'],
    ['link-dir/secret.txt', 'leads through a symbolic link'],
    ['dangling', 'leads through a symbolic link'],
  ])('refuses %s with a WorkspaceEscapeError', async (userPath, message) => {
    const error = await resolveInside(sb.root, userPath).catch((e: unknown) => e);
    expect(isWorkspaceEscapeError(error)).toBe(true);
    expect((error as Error).message).toContain(
      `path ${JSON.stringify(userPath)} is outside the workspace root`,
    );
    expect((error as Error).message).toContain(message);
  });

  it('refuses NUL bytes', async () => {
    await expect(resolveInside(sb.root, 'a\0b')).rejects.toThrow('contains a NUL byte');
  });

  it('reports link loops instead of hanging', async () => {
    await fs.symlink('loop-b', path.join(sb.root, 'loop-a'));
    await fs.symlink('loop-a', path.join(sb.root, 'loop-b'));
    await expect(resolveInside(sb.root, 'loop-a')).rejects.toThrow('symbolic link or link loop');
  });

  it('says when the root itself is missing', async () => {
    await expect(resolveInside(path.join(sb.base, 'nope'), 'a')).rejects.toThrow(
      /workspace root .* cannot be resolved/,
    );
  });
});

// These call the open layer directly with paths that resolution would have refused, as if the
// path had been swapped for a link after it was checked.
describe('opening after a swap (TOCTOU defences)', () => {
  const signal = new AbortController().signal;

  it('refuses to read when the final component became a symlink (O_NOFOLLOW)', async () => {
    await expect(openForRead(rootReal, path.join(rootReal, 'link-file'), 'link-file')).rejects.toThrow(
      'symbolic link',
    );
  });

  it('refuses to write when the final component became a symlink, leaving the target intact', async () => {
    await expect(
      writeTextFile(rootReal, path.join(rootReal, 'link-file'), 'link-file', 'pwned'),
    ).rejects.toThrow('symbolic link');
    expect(await fs.readFile(path.join(sb.outside, 'secret.txt'), 'utf8')).toBe(SECRET);
  });

  it.skipIf(process.platform !== 'linux')(
    'refuses to read through an intermediate directory that became a link outside',
    async () => {
      const swapped = path.join(rootReal, 'link-dir', 'secret.txt');
      await expect(
        readTextFile(rootReal, swapped, 'link-dir/secret.txt', { maxBytes: 1024, signal }),
      ).rejects.toThrow('changed into a link to a location outside');
    },
  );

  it.skipIf(process.platform !== 'linux')(
    'refuses to write through an intermediate directory that became a link outside, without truncating',
    async () => {
      const swapped = path.join(rootReal, 'link-dir', 'secret.txt');
      await expect(writeTextFile(rootReal, swapped, 'link-dir/secret.txt', 'pwned')).rejects.toThrow(
        'changed into a link to a location outside',
      );
      expect(await fs.readFile(path.join(sb.outside, 'secret.txt'), 'utf8')).toBe(SECRET);
    },
  );
});
