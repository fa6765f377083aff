import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeCtx, makeSandbox, type Sandbox, textOf } from './helpers.js';

let sb: Sandbox;
beforeEach(async () => {
  sb = await makeSandbox();
  await fs.mkdir(path.join(sb.root, 'src'));
  await fs.writeFile(path.join(sb.root, 'src', 'lines.txt'), 'one\ntwo\nthree\nfour\nfive\n');
});
afterEach(async () => {
  await sb.cleanup();
});

const read = async (input: unknown, options = {}) => textOf(await sb.call('read', input, options));

describe('read', () => {
  it('reads a whole text file', async () => {
    expect(await read({ path: 'src/lines.txt' })).toBe('one\ntwo\nthree\nfour\nfive\n');
  });

  it('reads by an absolute path inside the root', async () => {
    expect(await read({ path: path.join(sb.root, 'src', 'lines.txt') })).toContain('three');
  });

  it('reads a range of lines and says where the rest is', async () => {
    expect(await read({ path: 'src/lines.txt', offset: 2, limit: 2 })).toBe(
      'two\nthree\n[lines 2-3 of 5; pass offset=4 to read on]',
    );
    expect(await read({ path: 'src/lines.txt', offset: 4 })).toBe('four\nfive\n[lines 4-5 of 5]');
    expect(await read({ path: 'src/lines.txt', limit: 10 })).toBe('one\ntwo\nthree\nfour\nfive');
  });

  it('refuses an offset past the end', async () => {
    await expect(read({ path: 'src/lines.txt', offset: 9 })).rejects.toThrow(
      'offset 9 is past the end of the file, which has 5 lines',
    );
  });

  it('follows a symlink that stays inside the root', async () => {
    await fs.symlink('src/lines.txt', path.join(sb.root, 'alias.txt'));
    expect(await read({ path: 'alias.txt' })).toContain('five');
  });

  it('says when the file does not exist', async () => {
    await expect(read({ path: 'missing.txt' })).rejects.toThrow('path "missing.txt" does not exist');
  });

  it('points to ls for a directory', async () => {
    await expect(read({ path: 'src' })).rejects.toThrow('path "src" is a directory; use ls to list it');
  });

  it('refuses binary files', async () => {
    await fs.writeFile(path.join(sb.root, 'image.bin'), Buffer.from([0x89, 0x50, 0x00, 0x47]));
    await expect(read({ path: 'image.bin' })).rejects.toThrow('looks binary (it contains NUL bytes)');
  });

  it('refuses files over maxReadBytes', async () => {
    await expect(read({ path: 'src/lines.txt' }, { maxReadBytes: 10 })).rejects.toThrow(
      'is 24 bytes, over the 10-byte read limit; use grep',
    );
  });

  it('refuses a NUL byte in the path', async () => {
    await expect(read({ path: 'src\0lines.txt' })).rejects.toThrow('contains a NUL byte');
  });

  it('rejects invalid input before running', async () => {
    await expect(read({ path: 'src/lines.txt', offset: 0 })).rejects.toThrow('invalid input: offset');
  });

  it('honours an aborted signal', async () => {
    const controller = new AbortController();
    controller.abort(new Error('cancelled by caller'));
    const tool = sb.tools().get('read');
    if (tool === undefined) throw new Error('read missing');
    await expect(
      tool.executor.run({ path: 'src/lines.txt' }, makeCtx({ signal: controller.signal })),
    ).rejects.toThrow('cancelled by caller');
  });
});
