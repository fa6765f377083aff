import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exists, isDirectory, isDirectorySync, isFile, isFileSync } from '../../src/util/stat.js';

let dir: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'toolhost-stat-'));
  await fs.writeFile(path.join(dir, 'file.txt'), 'x');
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe('exists, isFile, isDirectory and the sync twins', () => {
  it('tell a file from a folder and say no for what is missing', async () => {
    const file = path.join(dir, 'file.txt');
    const missing = path.join(dir, 'missing');
    expect([await exists(file), await isFile(file), await isDirectory(file)]).toEqual([true, true, false]);
    expect([await exists(dir), await isFile(dir), await isDirectory(dir)]).toEqual([true, false, true]);
    expect([await exists(missing), await isFile(missing), await isDirectory(missing)]).toEqual([
      false,
      false,
      false,
    ]);
  });

  it('isFileSync and isDirectorySync answer as isFile and isDirectory do', () => {
    const file = path.join(dir, 'file.txt');
    const missing = path.join(dir, 'missing');
    expect([isFileSync(file), isDirectorySync(file)]).toEqual([true, false]);
    expect([isFileSync(dir), isDirectorySync(dir)]).toEqual([false, true]);
    expect([isFileSync(missing), isDirectorySync(missing)]).toEqual([false, false]);
  });
});
