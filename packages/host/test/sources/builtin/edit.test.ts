import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox, textOf } from './helpers.js';

let sb: Sandbox;
const original = 'const a = 1;\nconst b = 2;\nconst a2 = 1;\n';
beforeEach(async () => {
  sb = await makeSandbox();
  await fs.writeFile(path.join(sb.root, 'code.ts'), original);
});
afterEach(async () => {
  await sb.cleanup();
});

const edit = async (input: unknown) => textOf(await sb.call('edit', input));
const code = () => fs.readFile(path.join(sb.root, 'code.ts'), 'utf8');

describe('edit', () => {
  it('replaces the one occurrence of oldText', async () => {
    expect(await edit({ path: 'code.ts', oldText: 'const b = 2;', newText: 'const b = 3;' })).toBe(
      'Edited code.ts: replaced 1 occurrence',
    );
    expect(await code()).toBe('const a = 1;\nconst b = 3;\nconst a2 = 1;\n');
  });

  it('inserts newText literally, even with $ patterns', async () => {
    await edit({ path: 'code.ts', oldText: 'const b = 2;', newText: "const b = '$&$1';" });
    expect(await code()).toContain("const b = '$&$1';");
  });

  it('says when oldText is not found, and changes nothing', async () => {
    await expect(edit({ path: 'code.ts', oldText: 'const c', newText: 'x' })).rejects.toThrow(
      'oldText was not found in code.ts',
    );
    expect(await code()).toBe(original);
  });

  it('says how many times an ambiguous oldText occurs, and changes nothing', async () => {
    await expect(edit({ path: 'code.ts', oldText: ' = 1;', newText: ' = 9;' })).rejects.toThrow(
      'oldText occurs 2 times in code.ts; add surrounding context',
    );
    expect(await code()).toBe(original);
  });

  it('refuses an empty oldText', async () => {
    await expect(edit({ path: 'code.ts', oldText: '', newText: 'x' })).rejects.toThrow(
      'invalid input: oldText',
    );
  });

  it('says when the file does not exist', async () => {
    await expect(edit({ path: 'nope.ts', oldText: 'a', newText: 'b' })).rejects.toThrow(
      'path "nope.ts" does not exist',
    );
  });

  it('refuses binary files', async () => {
    await fs.writeFile(path.join(sb.root, 'blob.bin'), Buffer.from('ab\0cd'));
    await expect(edit({ path: 'blob.bin', oldText: 'ab', newText: 'x' })).rejects.toThrow('looks binary');
  });
});
