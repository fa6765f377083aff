/**
 * `ctx.fs` cannot race out of its grant. A plugin holds relative symlinks inside its grant (any
 * pnpm `node_modules` or git checkout has them) and moves them over folders that other `ctx.fs`
 * calls of its own are using at that moment: moved, `data/d1/d2/lnk -> ../..` points at the
 * project's parent (`data/x`) or at the project root (`data/d1/y`). Each operation races those
 * swaps; nothing outside `data/` may be read, listed, moved, created or deleted.
 */
import { lstat, mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { attackPlugin, expectNoHostPaths, reportOf, useHarness } from './helpers.js';

/** Swap rounds per slot: enough to lose the old path-based checks every run, still a few seconds. */
const ROUNDS = 20;
/** Outside the grant: its size is what `stat` would report, its text what `readFile` would. */
const SECRET = 'outside-the-grant-secret';
const INNER = 'inner';

/** Every file and folder under `dir` (folders end in `/`), with file contents, links as `-> target`. */
async function tree(dir: string, skip: readonly string[] = []): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (at: string, prefix: string): Promise<void> => {
    for (const name of (await readdir(at)).sort()) {
      const rel = `${prefix}${name}`;
      if (skip.includes(rel)) continue;
      const full = path.join(at, name);
      const info = await lstat(full);
      if (info.isDirectory()) {
        out[`${rel}/`] = '';
        await walk(full, `${rel}/`);
      } else out[rel] = info.isSymbolicLink() ? '-> link' : await readFile(full, 'utf8');
    }
  };
  await walk(dir, '');
  return out;
}

const SWAPPING_PLUGIN = attackPlugin(
  'racer',
  `
  const slots = [
    { at: 'data/x', link: 'data/d1/d2/lnkA' },
    { at: 'data/d1/y', link: 'data/d1/d2/lnkB' },
  ];
  const seen = { reads: [], lists: [], sizes: [], moved: 0, swapped: 0, errors: {} };
  const quiet = async (op) => {
    try { return await op(); } catch (e) { seen.errors[e.code] = (seen.errors[e.code] ?? 0) + 1; return undefined; }
  };
  const ok = async (op) => (await quiet(() => op().then(() => true))) === true;
  // Parks the slot's folder, moves the link into its place, lets the uses run, and puts both back.
  const swap = async ({ at, link }, lane) => {
    for (let i = 0; i < ${ROUNDS}; i++) {
      const parked = 'data/parked-' + lane + '-' + i;
      if (!(await ok(() => ctx.fs.rename(at, parked)))) continue;
      if (await ok(() => ctx.fs.rename(link, at))) {
        seen.swapped++;
        await quiet(() => ctx.fs.readdir('data'));
        await quiet(() => ctx.fs.rename(at, link));
      }
      // A use may have made a new folder at the slot meanwhile (writeFile makes missing folders).
      for (let tries = 0; tries < 10 && !(await ok(() => ctx.fs.rename(parked, at))); tries++) {
        await quiet(() => ctx.fs.rm(at, { recursive: true }));
      }
    }
  };
  // Every operation, on names that exist both in the slot's folder and outside the grant.
  const use = async ({ at }, lane) => {
    for (let i = 0; i < ${ROUNDS}; i++) {
      await quiet(() => ctx.fs.writeFile(at + '/secret.txt', '${INNER}'));
      const text = await quiet(() => ctx.fs.readFile(at + '/secret.txt'));
      if (text !== undefined) seen.reads.push(text);
      const names = await quiet(() => ctx.fs.readdir(at));
      if (names !== undefined) seen.lists.push(names.join(','));
      const info = await quiet(() => ctx.fs.stat(at + '/secret.txt'));
      if (info !== undefined) seen.sizes.push(info.size);
      if (await ok(() => ctx.fs.rename(at + '/secret.txt', 'data/got/' + lane + '-' + i))) seen.moved++;
      await quiet(() => ctx.fs.rm(at + '/victim', { recursive: true }));
      await quiet(() => ctx.fs.mkdir(at + '/victim'));
      await quiet(() => ctx.fs.mkdir(at + '/victim/deep'));
      await quiet(() => ctx.fs.writeFile(at + '/victim/deep/f.txt', '${INNER}'));
      await quiet(() => ctx.fs.appendFile(at + '/appended.txt', 'appended'));
      await quiet(() => ctx.fs.mkdir(at + '/made', { recursive: true }));
      await quiet(() => ctx.fs.rm(at + '/made'));
    }
  };
  await Promise.all([
    swap(slots[0], 'x'), swap(slots[1], 'y'),
    use(slots[0], 'a'), use(slots[1], 'b'), use(slots[0], 'c'), use(slots[1], 'd'),
  ]);
  return JSON.stringify(seen);
  `,
  { permissions: `{ fs: { write: ['data'] } }` },
);

interface Seen {
  readonly reads: string[];
  readonly lists: string[];
  readonly sizes: number[];
  readonly moved: number;
  readonly swapped: number;
  readonly errors: Record<string, number>;
}

describe('ctx.fs under concurrent link swaps by the same plugin', () => {
  const h = useHarness();
  let base: string;
  let root: string;

  beforeEach(async () => {
    // The project's parent is ours too, so what lies above the project can be checked.
    base = await h.project();
    root = path.join(base, 'project');
    for (const dir of [base, root]) {
      await mkdir(path.join(dir, 'victim', 'deep'), { recursive: true });
      await writeFile(path.join(dir, 'victim', 'deep', 'f.txt'), SECRET);
      await writeFile(path.join(dir, 'secret.txt'), SECRET);
    }
    await writeFile(path.join(root, 'toolhost.config.json'), '{}');
    for (const slot of ['data/x', 'data/d1/y']) {
      await mkdir(path.join(root, slot, 'victim', 'deep'), { recursive: true });
      await writeFile(path.join(root, slot, 'secret.txt'), INNER);
    }
    await mkdir(path.join(root, 'data', 'd1', 'd2'), { recursive: true });
    await mkdir(path.join(root, 'data', 'got'), { recursive: true });
    // Both resolve to data/ where they are; moved up, they lead out of it.
    await symlink('../..', path.join(root, 'data', 'd1', 'd2', 'lnkA'));
    await symlink('../..', path.join(root, 'data', 'd1', 'd2', 'lnkB'));
  });

  it('no sequence of concurrent ctx.fs calls reads, lists, moves, creates or deletes outside the grant', async () => {
    const outsideBefore = await tree(base, ['project/data', 'project/plugins']);
    const { session } = await h.start({
      root,
      plugins: { racer: SWAPPING_PLUGIN },
      settings: {
        racer: {
          grants: { fs: { write: ['data'] } },
          // Room for every lane at once, so swaps and uses interleave as much as they can.
          limits: { timeoutMs: 120_000, cpuMs: 60_000, fsConcurrency: 8 },
        },
      },
    });
    const outcome = await session.call('attack', {});
    const seen = reportOf<Seen>(outcome);
    expectNoHostPaths(JSON.stringify(seen), root);

    expect(await tree(base, ['project/data', 'project/plugins'])).toEqual(outsideBefore);
    expect(seen.reads.filter((text) => text !== INNER)).toEqual([]);
    expect(seen.sizes.filter((size) => size !== INNER.length)).toEqual([]);
    const outsideNames = /(^|,)(project\/|toolhost\.config\.json|data\/|plugins\/)(,|$)/;
    expect(seen.lists.filter((list) => outsideNames.test(list))).toEqual([]);
    for (const [name, content] of Object.entries(await tree(path.join(root, 'data')))) {
      expect(content, `data/${name}`).not.toBe(SECRET);
    }
    // The race was run: links were swapped in, and the uses got through in between.
    expect(seen.reads.length).toBeGreaterThan(0);
    expect(seen.moved).toBeGreaterThan(0);
    expect(seen.swapped).toBeGreaterThan(0);
  });
});
