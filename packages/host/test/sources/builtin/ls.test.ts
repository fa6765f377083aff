import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox, textOf } from './helpers.js';

let sb: Sandbox;
beforeEach(async () => {
  sb = await makeSandbox();
  await fs.mkdir(path.join(sb.root, 'src', 'empty'), { recursive: true });
  await fs.writeFile(path.join(sb.root, 'src', 'b.ts'), '');
  await fs.writeFile(path.join(sb.root, 'src', 'a.ts'), '');
  await fs.writeFile(path.join(sb.root, 'README.md'), '');
});
afterEach(async () => {
  await sb.cleanup();
});

const ls = async (input: unknown) => textOf(await sb.call('ls', input));

describe('ls', () => {
  it('lists the root by default, sorted, with / for directories and @ for links', async () => {
    expect(await ls({})).toBe(['README.md', 'dangling@', 'link-dir@', 'link-file@', 'src/'].join('\n'));
  });

  it('lists a subdirectory', async () => {
    expect(await ls({ path: 'src' })).toBe('a.ts\nb.ts\nempty/');
  });

  it('says when a directory is empty', async () => {
    expect(await ls({ path: 'src/empty' })).toBe('(src/empty is an empty directory)');
  });

  it('points to read for a file', async () => {
    await expect(ls({ path: 'README.md' })).rejects.toThrow('is a file, not a directory; use read');
  });

  it('says when the directory does not exist', async () => {
    await expect(ls({ path: 'nope' })).rejects.toThrow('path "nope" does not exist');
  });
});
