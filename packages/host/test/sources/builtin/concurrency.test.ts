import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AnthropicToolUseBlock } from '../../../src/core/dispatch/adapters/anthropic.js';
import { createHost, type ToolHost } from '../../../src/host/host.js';
import { makeSandbox, type Sandbox, SECRET, textOf } from './helpers.js';

/**
 * File-changing built-ins run concurrently (`dispatchAll` runs an assistant message's tool_use
 * blocks in parallel) without losing a change, and every write is atomic.
 */
let sb: Sandbox;
let host: ToolHost;
beforeEach(async () => {
  sb = await makeSandbox();
  host = await createHost({ root: sb.root, pluginsDir: false, configFile: false });
});
afterEach(async () => {
  await host.close();
  await sb.cleanup();
});

const at = (rel: string) => path.join(sb.root, rel);
const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i}`).join('\n');

function editUses(file: string, n: number): AnthropicToolUseBlock[] {
  return Array.from({ length: n }, (_, i) => ({
    type: 'tool_use',
    id: `toolu_${i}`,
    name: 'edit',
    input: { path: file, oldText: `line ${i}\n`, newText: `LINE ${i} edited\n` },
  }));
}

describe('concurrent edits of one file through dispatchAll', () => {
  it.each([2, 24])('%i edits of one file all land, each reported once', async (n) => {
    await fs.writeFile(at('code.txt'), `${lines(n)}\n`);
    const results = await host.session().dispatchAll(editUses('code.txt', n));
    expect(results.map((r) => r.is_error ?? false)).toEqual(Array(n).fill(false));
    const expected = Array.from({ length: n }, (_, i) => `LINE ${i} edited`).join('\n');
    expect(await fs.readFile(at('code.txt'), 'utf8')).toBe(`${expected}\n`);
  });

  it('a write and an edit of one file in one message: the edit never works on a torn file', async () => {
    await fs.writeFile(at('f.txt'), 'a\nb\n');
    const uses: AnthropicToolUseBlock[] = [
      { type: 'tool_use', id: 'w', name: 'write', input: { path: 'f.txt', content: 'a\nb\nc\n' } },
      { type: 'tool_use', id: 'e', name: 'edit', input: { path: 'f.txt', oldText: 'b\n', newText: 'B\n' } },
    ];
    const results = await host.session().dispatchAll(uses);
    expect(results.map((r) => r.is_error ?? false)).toEqual([false, false]);
    // Whichever ran first, the other ran on its result: the edit is never lost to the write's
    // old snapshot, and the write is whole.
    expect(['a\nB\nc\n', 'a\nb\nc\n']).toContain(await fs.readFile(at('f.txt'), 'utf8'));
  });

  it('edits of different files in one message all land', async () => {
    await Promise.all([0, 1, 2].map((i) => fs.writeFile(at(`f${i}.txt`), 'x\n')));
    const uses: AnthropicToolUseBlock[] = [0, 1, 2].map((i) => ({
      type: 'tool_use',
      id: `u${i}`,
      name: 'edit',
      input: { path: `f${i}.txt`, oldText: 'x', newText: `y${i}` },
    }));
    await host.session().dispatchAll(uses);
    for (const i of [0, 1, 2]) expect(await fs.readFile(at(`f${i}.txt`), 'utf8')).toBe(`y${i}\n`);
  });
});

describe('atomic writes', () => {
  it('a reader never sees an empty or partial file while writes replace it', async () => {
    const a = 'A'.repeat(256 * 1024);
    const b = 'B'.repeat(256 * 1024);
    await fs.writeFile(at('big.txt'), a);
    const session = host.session();
    const seen = new Set<string>();
    for (let round = 0; round < 10; round++) {
      let writing = true;
      const write = session
        .call('write', { path: 'big.txt', content: round % 2 === 0 ? b : a })
        .finally(() => {
          writing = false;
        });
      // Readers keep reading for as long as the write runs, so any moment of it is looked at.
      const reader = async () => {
        do {
          const text = await fs.readFile(at('big.txt'), 'utf8');
          seen.add(text === a ? 'a' : text === b ? 'b' : `torn (${text.length} chars)`);
        } while (writing);
      };
      await Promise.all([write, reader(), reader()]);
    }
    expect([...seen].filter((s) => s.startsWith('torn'))).toEqual([]);
  });

  it('leaves no temporary file behind after writes and edits', async () => {
    await fs.mkdir(at('dir'));
    await fs.writeFile(at('dir/code.txt'), `${lines(8)}\n`);
    await host.session().dispatchAll(editUses('dir/code.txt', 8));
    await host.session().call('write', { path: 'dir/new.txt', content: 'x' });
    expect((await fs.readdir(at('dir'))).sort()).toEqual(['code.txt', 'new.txt']);
  });

  it('keeps the permission bits of the file it replaces', async () => {
    await fs.writeFile(at('script.sh'), '#!/bin/sh\necho old\n');
    await fs.chmod(at('script.sh'), 0o750);
    await fs.writeFile(at('private.txt'), 'old');
    await fs.chmod(at('private.txt'), 0o600);
    const session = host.session();
    await session.call('edit', { path: 'script.sh', oldText: 'old', newText: 'new' });
    await session.call('write', { path: 'private.txt', content: 'new' });
    expect((await fs.stat(at('script.sh'))).mode & 0o777).toBe(0o750);
    expect((await fs.stat(at('private.txt'))).mode & 0o777).toBe(0o600);
  });
});

describe('files with more than one name', () => {
  it('a write through a hard link whose other name is outside the root is refused and changes nothing', async () => {
    await fs.link(path.join(sb.outside, 'secret.txt'), at('hard.txt'));
    const before = await sb.snapshotOutside();
    const outcome = await host.session().call('write', { path: 'hard.txt', content: 'pwned' });
    expect(outcome.result.isError).toBe(true);
    expect(textOf(outcome.result)).toMatch(
      /file "hard\.txt" has 2 hard links \(other names for the same file, possibly outside the workspace\)/,
    );
    const edited = await host.session().call('edit', { path: 'hard.txt', oldText: 'TOP', newText: 'pwned' });
    expect(edited.result.isError).toBe(true);
    expect(await sb.snapshotOutside()).toEqual(before);
    expect(await fs.readFile(at('hard.txt'), 'utf8')).toBe(SECRET);
  });

  it('a hard link inside the root is refused too; the file stays readable', async () => {
    await fs.writeFile(at('a.txt'), 'same');
    await fs.link(at('a.txt'), at('b.txt'));
    const session = host.session();
    const outcome = await session.call('write', { path: 'a.txt', content: 'changed' });
    expect(textOf(outcome.result)).toContain('has 2 hard links');
    expect(textOf((await session.call('read', { path: 'b.txt' })).result)).toBe('same');
  });
});
