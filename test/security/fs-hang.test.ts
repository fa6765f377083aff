/**
 * `ctx.fs` cannot hang the host. A FIFO in a grant would block an open until a reader or writer
 * came, and every blocked open holds a thread of libuv's pool (4 by default), which the host's own
 * file operations share: four of them and even the built-in `read` waits forever. ctx.fs opens
 * only regular files, and one plugin runs at most `fsConcurrency` file operations at once.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { attackPlugin, attempts, expectNoHostPaths, reportOf, textOf, useHarness } from './helpers.js';

describe('ctx.fs and files that are not regular files', () => {
  const h = useHarness();
  let root: string;

  beforeEach(async () => {
    root = await h.project();
    await mkdir(path.join(root, 'data'), { recursive: true });
    execFileSync('mkfifo', [path.join(root, 'data', 'pipe')]);
    await writeFile(path.join(root, 'data', 'big.txt'), 'b'.repeat(1024 * 1024));
    await writeFile(path.join(root, 'notes.txt'), 'the host still reads');
  });

  it('a FIFO in the grant is refused at once by every operation that opens files, saying what it is', async () => {
    const { session } = await h.start({
      root,
      plugins: {
        piper: attackPlugin(
          'piper',
          attempts(
            [
              `return await ctx.fs.appendFile('data/pipe', 'x');`,
              `return await ctx.fs.readFile('data/pipe');`,
              `return await ctx.fs.writeFile('data/pipe', 'x');`,
              `const info = await ctx.fs.stat('data/pipe'); return [info.isFile, info.isDirectory];`,
              `return await ctx.fs.readdir('data');`,
            ],
            'code',
          ),
          { permissions: `{ fs: { write: ['data'] } }` },
        ),
      },
      settings: { piper: { grants: { fs: { write: ['data'] } }, limits: { timeoutMs: 60_000 } } },
    });
    const out = reportOf<string[]>(await session.call('attack', {}));
    for (const line of out) expectNoHostPaths(line, root);
    expect(out[0]).toMatch(
      /^failed: ctx\.fs\.appendFile of "data\/pipe" failed: it is a FIFO \(named pipe\); ctx\.fs opens only regular files/,
    );
    expect(out[1]).toMatch(/^failed: ctx\.fs\.readFile of "data\/pipe" failed: it is a FIFO \(named pipe\)/);
    expect(out[2]).toMatch(/^failed: ctx\.fs\.writeFile of "data\/pipe" failed: .*is not a regular file/);
    // Looking at it and listing it open nothing: they still work.
    expect(out.slice(3)).toEqual(['ok: [false,false]', 'ok: ["big.txt","pipe"]']);
  });

  it('while one plugin keeps many ctx.fs operations in flight, the built-in read tool still answers', async () => {
    const { session } = await h.start({
      root,
      builtins: {},
      plugins: {
        busy: attackPlugin(
          'busy',
          `
          let rounds = 0;
          const refusals = new Set();
          const one = (op) => op.then(() => {}, (e) => { refusals.add(String(e && e.code)); });
          for (;;) {
            const batch = [];
            for (let i = 0; i < 16; i++) {
              batch.push(one(ctx.fs.appendFile('data/pipe', 'x')));
              batch.push(one(ctx.fs.readFile('data/big.txt')));
            }
            if (rounds === 0) ctx.log.info('in flight');
            await Promise.all(batch);
            rounds++;
            const stop = await ctx.fs.stat('data/stop').then(() => true, () => false);
            if (stop) return JSON.stringify({ rounds, refusals: [...refusals] });
          }`,
          { permissions: `{ fs: { write: ['data'] } }` },
        ),
      },
      settings: { busy: { grants: { fs: { write: ['data'] } }, limits: { timeoutMs: 60_000 } } },
    });
    let inFlight!: () => void;
    const launched = new Promise<void>((resolve) => {
      inFlight = resolve;
    });
    const busy = session.call('attack', {}, undefined, { observer: { log: () => inFlight() } });
    await launched;

    const read = await session.call('read', { path: 'notes.txt' });
    expect(textOf(read)).toContain('the host still reads');

    await writeFile(path.join(root, 'data', 'stop'), '');
    const report = reportOf<{ rounds: number; refusals: string[] }>(await busy);
    expect(report.rounds).toBeGreaterThan(0);
    expect(report.refusals).toEqual(['failed']);
  });
});
