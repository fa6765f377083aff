import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeCtx, makeSandbox, type Sandbox, textOf } from './helpers.js';

let sb: Sandbox;
beforeEach(async () => {
  sb = await makeSandbox();
});
afterEach(async () => {
  await sb.cleanup();
});

const write = async (input: unknown) => textOf(await sb.call('write', input));
const contentOf = (rel: string) => fs.readFile(path.join(sb.root, rel), 'utf8');

describe('write', () => {
  it('creates a file and its missing parent directories', async () => {
    expect(await write({ path: 'a/b/c.txt', content: 'héllo\n' })).toBe('Created a/b/c.txt (7 bytes)');
    expect(await contentOf('a/b/c.txt')).toBe('héllo\n');
  });

  it('overwrites an existing file completely', async () => {
    await fs.writeFile(path.join(sb.root, 'f.txt'), 'a much longer original content');
    expect(await write({ path: 'f.txt', content: 'short' })).toBe('Overwrote f.txt (5 bytes)');
    expect(await contentOf('f.txt')).toBe('short');
  });

  it('writes an empty file', async () => {
    await write({ path: 'empty.txt', content: '' });
    expect(await contentOf('empty.txt')).toBe('');
  });

  it('writes through an inside symlink to its target, keeping the link', async () => {
    await fs.writeFile(path.join(sb.root, 'target.txt'), 'old');
    await fs.symlink('target.txt', path.join(sb.root, 'alias.txt'));
    await write({ path: 'alias.txt', content: 'new' });
    expect(await contentOf('target.txt')).toBe('new');
    expect((await fs.lstat(path.join(sb.root, 'alias.txt'))).isSymbolicLink()).toBe(true);
  });

  it('creates the target of a dangling symlink that points inside', async () => {
    await fs.symlink('made-by-link.txt', path.join(sb.root, 'inside-dangling'));
    await write({ path: 'inside-dangling', content: 'x' });
    expect(await contentOf('made-by-link.txt')).toBe('x');
  });

  it('refuses to write over a directory', async () => {
    await fs.mkdir(path.join(sb.root, 'dir'));
    await expect(write({ path: 'dir', content: 'x' })).rejects.toThrow('path "dir" is a directory');
  });

  it('refuses a path that goes through a file', async () => {
    await fs.writeFile(path.join(sb.root, 'file.txt'), 'x');
    await expect(write({ path: 'file.txt/inner.txt', content: 'x' })).rejects.toThrow(
      'goes through a file as if it were a directory',
    );
  });

  it('does nothing when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('cancelled by caller'));
    const tool = sb.tools().get('write');
    if (tool === undefined) throw new Error('write missing');
    await expect(
      tool.executor.run({ path: 'never.txt', content: 'x' }, makeCtx({ signal: controller.signal })),
    ).rejects.toThrow('cancelled by caller');
    await expect(fs.access(path.join(sb.root, 'never.txt'))).rejects.toThrow();
  });
});
