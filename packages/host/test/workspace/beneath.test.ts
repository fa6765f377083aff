import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Beneath, beneath, type FolderMode, MAX_DEPTH, reach } from '../../src/workspace/beneath.js';
import { isWorkspaceEscapeError } from '../../src/workspace/confine.js';
import { ControlGuard } from '../../src/workspace/control.js';

let base: string;
let root: string;
beforeEach(async () => {
  base = await fs.realpath(await fs.mkdtemp(path.join(tmpdir(), 'toolhost-beneath-')));
  root = path.join(base, 'project');
  await fs.mkdir(path.join(root, 'data', 'd1', 'd2'), { recursive: true });
  await fs.mkdir(path.join(root, 'store', 'pkg'), { recursive: true });
  await fs.writeFile(path.join(root, 'data', 'f.txt'), 'inside');
  await fs.writeFile(path.join(root, 'store', 'pkg', 'index.js'), 'pkg');
  await fs.writeFile(path.join(base, 'f.txt'), 'outside');
});
afterEach(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

const MODES: FolderMode[] = process.platform === 'linux' ? ['descriptors', 'paths'] : ['paths'];

/** Resolves in a walk of its own and returns what a caller compares: real path, name, missing, linked. */
function resolved(mode: FolderMode, relative: string, followLeaf = true) {
  return beneath(root, mode, async (walk) => {
    const { real, name, missing, linked } = await walk.resolve(relative, relative, followLeaf);
    return { real: path.relative(root, real) || '.', name, missing, linked };
  });
}

describe.each(MODES)('walking beneath the project root, folders held by %s', (mode) => {
  it('names a plain path as an entry in its folder, missing folders listed apart', async () => {
    expect(await resolved(mode, 'data/f.txt')).toEqual({
      real: 'data/f.txt',
      name: 'f.txt',
      missing: [],
      linked: false,
    });
    expect(await resolved(mode, 'data/new/deeper/x.txt')).toEqual({
      real: 'data/new/deeper/x.txt',
      name: 'x.txt',
      missing: ['new', 'deeper'],
      linked: false,
    });
    expect(await resolved(mode, '.')).toEqual({ real: '.', name: undefined, missing: [], linked: false });
  });

  it('follows a relative link by its text, ".." going back to the folder held before', async () => {
    await fs.symlink('../../store/pkg', path.join(root, 'data', 'd1', 'pkg'));
    await fs.symlink('../..', path.join(root, 'data', 'd1', 'd2', 'up'));
    expect(await resolved(mode, 'data/d1/pkg/index.js')).toMatchObject({
      real: 'store/pkg/index.js',
      linked: true,
    });
    // Ending on a folder reached by "..": named in its own parent.
    expect(await resolved(mode, 'data/d1/d2/up')).toEqual({
      real: 'data',
      name: 'data',
      missing: [],
      linked: true,
    });
    // Not followed when the operation acts on the link itself.
    expect(await resolved(mode, 'data/d1/d2/up', false)).toMatchObject({
      real: 'data/d1/d2/up',
      linked: false,
    });
  });

  it('an absolute link into the project restarts at the root; one leading out, or ".." above the root, is refused', async () => {
    await fs.symlink(path.join(root, 'store'), path.join(root, 'data', 'abs'));
    await fs.symlink(base, path.join(root, 'data', 'out'));
    await fs.symlink('../../..', path.join(root, 'data', 'd1', 'above'));
    expect(await resolved(mode, 'data/abs/pkg/index.js')).toMatchObject({ real: 'store/pkg/index.js' });
    for (const leading of ['data/out/f.txt', 'data/d1/above/f.txt', 'data/d1/above']) {
      const error = await resolved(mode, leading).catch((e: unknown) => e);
      expect(isWorkspaceEscapeError(error), leading).toBe(true);
    }
  });

  it('a link loop fails with ELOOP, a file on the way with ENOTDIR', async () => {
    await fs.symlink('loop-b', path.join(root, 'data', 'loop-a'));
    await fs.symlink('loop-a', path.join(root, 'data', 'loop-b'));
    await expect(resolved(mode, 'data/loop-a/x')).rejects.toMatchObject({ code: 'ELOOP' });
    await expect(resolved(mode, 'data/f.txt/x')).rejects.toMatchObject({ code: 'ENOTDIR' });
  });

  it(`a path more than ${MAX_DEPTH} folders deep is refused`, async () => {
    const deep = Array.from({ length: MAX_DEPTH + 1 }, () => 'd').join('/');
    await fs.mkdir(path.join(root, deep), { recursive: true });
    await expect(resolved(mode, `${deep}/x`)).rejects.toMatchObject({ code: 'ENAMETOOLONG' });
  });

  it('makes missing folders one inside the other and names the entry in the last', async () => {
    await beneath(root, mode, async (walk) => {
      const target = await walk.resolve('data/n1/n2/x.txt', 'data/n1/n2/x.txt', true);
      const folder = await walk.ensureParent(target);
      await fs.writeFile(walk.at(folder, 'x.txt'), 'made');
    });
    expect(await fs.readFile(path.join(root, 'data', 'n1', 'n2', 'x.txt'), 'utf8')).toBe('made');
  });
});

describe.runIf(process.platform === 'linux')('folders held by descriptor', () => {
  it('a folder swapped for a link after the walk is still the one acted in', async () => {
    await fs.mkdir(path.join(root, 'data', 'x'));
    await fs.writeFile(path.join(root, 'data', 'x', 'f.txt'), 'inside x');
    const text = await beneath(root, 'descriptors', async (walk) => {
      const target = await walk.resolve('data/x/f.txt', 'data/x/f.txt', true);
      // What the race does: the folder moves away, and a link to outside takes its name.
      await fs.rename(path.join(root, 'data', 'x'), path.join(root, 'data', 'x-moved'));
      await fs.symlink(base, path.join(root, 'data', 'x'));
      return fs.readFile(walk.at(target.parent, target.name as string), 'utf8');
    });
    expect(text).toBe('inside x');
  });

  it('the control check looks inodes up through the held folders: a hard link to the config stays refused when its folder is swapped', async () => {
    await fs.writeFile(path.join(root, 'toolhost.config.json'), '{}');
    await fs.mkdir(path.join(root, 'data', 'x'));
    await fs.link(path.join(root, 'toolhost.config.json'), path.join(root, 'data', 'x', 'cfg'));
    await fs.mkdir(path.join(root, 'data', 'decoy'));
    await fs.writeFile(path.join(root, 'data', 'decoy', 'cfg'), 'plain');
    const guard = ControlGuard.forPlugins(root);
    await beneath(root, 'descriptors', async (walk) => {
      const target = await walk.resolve('data/x/cfg', 'data/x/cfg', true);
      await fs.rename(path.join(root, 'data', 'x'), path.join(root, 'data', 'x-moved'));
      await fs.symlink('decoy', path.join(root, 'data', 'x'));
      // By path, data/x/cfg is the decoy now; what the operation would act on is still the link.
      await expect(guard.check(walk.rootReal, target.real, 'data/x/cfg', 'read')).resolves.toBeUndefined();
      await expect(
        guard.check(walk.rootReal, target.real, 'data/x/cfg', 'read', reach(target)),
      ).rejects.toMatchObject({ code: 'control-file' });
    });
  });

  it('closes every descriptor it opened, on success and on failure', async () => {
    await fs.symlink(base, path.join(root, 'data', 'out'));
    const open = async () => (await fs.readdir('/proc/self/fd')).length;
    const before = await open();
    await beneath(root, 'descriptors', (walk) => walk.resolve('data/d1/d2/x', 'x', true));
    await beneath(root, 'descriptors', (walk) => walk.resolve('data/out/x', 'x', true)).catch(() => {});
    const walk = await Beneath.open(root, 'descriptors');
    await walk.openFolder((await walk.resolve('data/d1', 'x', true)).parent, 'd1');
    walk.close();
    expect(await open()).toBe(before);
  });
});
