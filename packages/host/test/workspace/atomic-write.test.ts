import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type WriteStep, writeTextFile } from '../../src/workspace/files.js';
import { makeSandbox, type Sandbox } from '../sources/builtin/helpers.js';

/**
 * `writeTextFile` replaces a file through a temporary file and a rename. A crash at any step
 * before the rename leaves the old content; a failure at any step removes the temporary file.
 */
let sb: Sandbox;
let rootReal: string;
beforeEach(async () => {
  sb = await makeSandbox();
  rootReal = await fs.realpath(sb.root);
  await fs.mkdir(path.join(rootReal, 'dir'));
  await fs.writeFile(path.join(rootReal, 'dir/f.txt'), 'old content');
});
afterEach(async () => {
  await sb.cleanup();
});

const STEPS: readonly WriteStep[] = ['created', 'written', 'synced'];
const target = () => path.join(rootReal, 'dir/f.txt');
const listing = () => fs.readdir(path.join(rootReal, 'dir'));

describe('atomic replacement', () => {
  it('at every step before the rename, the file still has its old content (what a crash there leaves)', async () => {
    const seen: Record<string, string> = {};
    await writeTextFile(rootReal, target(), 'dir/f.txt', 'new content', {
      afterStep: async (step) => {
        seen[step] = await fs.readFile(target(), 'utf8');
      },
    });
    expect(seen).toEqual({ created: 'old content', written: 'old content', synced: 'old content' });
    expect(await fs.readFile(target(), 'utf8')).toBe('new content');
    expect(await listing()).toEqual(['f.txt']);
  });

  it.each(STEPS)(
    'a failure after the "%s" step keeps the old content and removes the temporary file',
    async (failAt) => {
      let tempSeen = false;
      await expect(
        writeTextFile(rootReal, target(), 'dir/f.txt', 'new content', {
          afterStep: async (step) => {
            if (step !== failAt) return;
            tempSeen = (await listing()).some((name) => name.startsWith('.f.txt.') && name.endsWith('.tmp'));
            throw new Error('the disk went away');
          },
        }),
      ).rejects.toThrow('the disk went away');
      expect(tempSeen).toBe(true);
      expect(await fs.readFile(target(), 'utf8')).toBe('old content');
      expect(await listing()).toEqual(['f.txt']);
    },
  );

  it('a failed creation of a new file leaves neither the file nor a temporary file', async () => {
    const fresh = path.join(rootReal, 'dir/new.txt');
    await expect(
      writeTextFile(rootReal, fresh, 'dir/new.txt', 'x', {
        afterStep: () => {
          throw new Error('stop');
        },
      }),
    ).rejects.toThrow('stop');
    expect(await listing()).toEqual(['f.txt']);
  });

  it('writes a file whose name is near the 255-byte limit (the temporary name must still fit)', async () => {
    const name = `${'é'.repeat(120)}.txt`; // 244 bytes
    await writeTextFile(rootReal, path.join(rootReal, 'dir', name), name, 'long');
    expect(await fs.readFile(path.join(rootReal, 'dir', name), 'utf8')).toBe('long');
    expect((await listing()).sort()).toEqual(['f.txt', name].sort());
  });

  it('refuses a target that is not a regular file without creating anything', async () => {
    await fs.mkdir(path.join(rootReal, 'dir/sub'));
    await expect(writeTextFile(rootReal, path.join(rootReal, 'dir/sub'), 'dir/sub', 'x')).rejects.toThrow(
      'path "dir/sub" is a directory',
    );
    expect((await listing()).sort()).toEqual(['f.txt', 'sub']);
  });
});
