import { closeSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { watch } from 'chokidar';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type ChangeBatch,
  type ProjectWatcher,
  RECHECK_AFTER_MS,
  throttleGuard,
  watchProject,
} from '../../src/host/watch.js';

describe('the project watcher', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function project(settleMs?: number, onEvent?: (id: string) => void) {
    const root = await mkdtemp(path.join(tmpdir(), 'toolhost-watch-'));
    cleanups.push(() => rm(root, { recursive: true, force: true }));
    for (const id of ['a', 'b']) {
      await mkdir(path.join(root, 'plugins', id), { recursive: true });
      await writeFile(path.join(root, 'plugins', id, 'index.ts'), 'export default 0;\n');
    }
    const batches: string[][] = [];
    /** Each plugin event as it came, and the batches so far when it did. */
    const events: { id: string; batchesBefore: number }[] = [];
    const waiters: { id: string; resolve: () => void }[] = [];
    const rechecks = new Map<string, (moved: boolean) => void>();
    const watcher: ProjectWatcher = watchProject({
      pluginsDir: path.join(root, 'plugins'),
      configFile: path.join(root, 'toolhost.config.json'),
      ...(settleMs === undefined ? {} : { settleMs }),
      onPluginEvent: (id) => {
        events.push({ id, batchesBefore: batches.length });
        onEvent?.(id);
      },
      onRecheck: (file, moved) => rechecks.get(file)?.(moved),
      onBatch: (batch: ChangeBatch) => {
        batches.push([...batch.plugins].sort());
        for (const waiter of [...waiters])
          if (batch.plugins.has(waiter.id)) {
            waiters.splice(waiters.indexOf(waiter), 1);
            waiter.resolve();
          }
      },
      onError: (error) => {
        throw error;
      },
    });
    cleanups.push(() => watcher.close());
    await watcher.ready;
    const batchOf = (id: string) => new Promise<void>((resolve) => waiters.push({ id, resolve }));
    /** Whether the next recheck of `file` found it moved unseen. */
    const recheckOf = (file: string) => new Promise<boolean>((resolve) => rechecks.set(file, resolve));
    return { root, batches, batchOf, events, recheckOf };
  }

  it("turns an editor's write-temp-then-rename save into one batch, the temp file's late unlink included", async () => {
    const { root, batches, batchOf } = await project();
    const dir = path.join(root, 'plugins', 'a');
    // A second watcher tells when chokidar has delivered the temp file's unlink (held back ~100 ms).
    const probe = watch(dir, { ignoreInitial: true });
    cleanups.push(() => probe.close());
    await new Promise<void>((resolve) => probe.once('ready', () => resolve()));
    const temp = path.join(dir, '.index.ts.swp-1234');
    const seen = (event: 'add' | 'unlink') =>
      new Promise<void>((resolve) =>
        probe.on(event, (file) => {
          if (file === temp) resolve();
        }),
      );
    const added = seen('add');
    const unlinked = seen('unlink');

    const saved = batchOf('a');
    await writeFile(temp, 'export default 1;\n');
    // Whether chokidar sees the temp file at all depends on how soon the rename follows; this
    // test takes the case where it does (and so reports its unlink late).
    await added;
    await rename(temp, path.join(dir, 'index.ts'));
    await saved;
    await unlinked;
    // A marker edit in another plugin: any batch the unlink caused comes before it, or with it.
    const marker = batchOf('b');
    await writeFile(path.join(root, 'plugins', 'b', 'index.ts'), 'export default 2;\n');
    await marker;
    expect(batches).toEqual([['a'], ['b']]);
  });

  it("tells of each event of a plugin's files as it comes, before the batch that names the plugin", async () => {
    const { root, batches, batchOf, events } = await project();
    const saved = batchOf('a');
    await writeFile(path.join(root, 'plugins', 'a', 'index.ts'), 'export default 1;\n');
    await saved;
    expect(batches).toEqual([['a']]);
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((e) => e.id === 'a' && e.batchesBefore === 0)).toBe(true);
  });

  it('sees a second save of the same file that chokidar throttles away (within 50 ms of the first)', async () => {
    // A short window, so that the second write lands inside chokidar's 50 ms throttle of the first.
    const { root, batches, batchOf } = await project(5);
    const file = path.join(root, 'plugins', 'a', 'index.ts');
    const first = batchOf('a');
    await writeFile(file, 'export default 1;\n');
    await first;
    const second = batchOf('a');
    await writeFile(file, 'export default 2;\n');
    let timer: NodeJS.Timeout | undefined;
    const missed = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`the second save was never reported: ${JSON.stringify(batches)}`)),
        60_000,
      );
    });
    try {
      await Promise.race([second, missed]);
    } finally {
      clearTimeout(timer);
    }
    expect(batches).toEqual([['a'], ['a']]);
  });

  /**
   * A save whose first event comes between its two writes: half the file is written, and the rest
   * from inside the watcher's own event callback, inside chokidar's throttle window (so no event
   * of its own follows).
   */
  async function halfSave(settleMs: number | undefined) {
    let half: number | undefined;
    const watched = await project(settleMs, () => {
      if (half === undefined) return;
      writeSync(half, ' 1;\n');
      closeSync(half);
      half = undefined;
    });
    const file = path.join(watched.root, 'plugins', 'a', 'index.ts');
    const saved = watched.batchOf('a');
    const rechecked = watched.recheckOf(file);
    half = openSync(file, 'w');
    writeSync(half, 'export default');
    await saved;
    return { ...watched, file, rechecked };
  }

  it('reads a save its event caught halfway once, when the batch goes out, with no second batch', async () => {
    const { batches, events, file, rechecked } = await halfSave(undefined);
    // A build started at that event may have read half the file: the plugin is told once more as
    // the batch goes out, so that build is not the one the batch takes.
    const ofA = events.filter((e) => e.id === 'a');
    expect(ofA.length).toBeGreaterThanOrEqual(2);
    expect(ofA.every((e) => e.batchesBefore === 0)).toBe(true);
    // The batch read the save whole: the recheck after the throttle window finds nothing unseen.
    expect(await rechecked).toBe(false);
    expect(batches).toEqual([['a']]);
    expect(readFileSync(file, 'utf8')).toBe('export default 1;\n');
  });

  it('compares a file its batch read after the recheck came with the stat taken as the batch went out', async () => {
    // A long settle: the recheck (65 ms after the event) comes while the batch still settles.
    const { batches, rechecked } = await halfSave(300);
    // Told as the batch went out: nothing unseen, and no batch but this one.
    expect(await rechecked).toBe(false);
    expect(batches).toEqual([['a']]);
  });
});

describe("the watcher's recheck of a changed file (throttleGuard)", () => {
  let dir = '';
  afterEach(async () => {
    vi.useRealTimers();
    await rm(dir, { recursive: true, force: true });
  });

  async function guarded() {
    dir = await mkdtemp(path.join(tmpdir(), 'toolhost-guard-'));
    const changed: string[] = [];
    const rechecks: [string, boolean][] = [];
    vi.useFakeTimers();
    const guard = throttleGuard(
      (file) => changed.push(file),
      (file, moved) => rechecks.push([file, moved]),
    );
    /** A file of `text` in the test's folder. */
    const fileWith = (name: string, text: string) => {
      const file = path.join(dir, name);
      writeFileSync(file, text);
      return file;
    };
    return { guard, changed, rechecks, fileWith };
  }

  it('says, as the batch goes out, which files moved since their event, and rechecks against that', async () => {
    const { guard, changed, rechecks, fileWith } = await guarded();
    const still = fileWith('still.ts', 'a');
    const moving = fileWith('moving.ts', 'a');
    guard.event('change', still);
    guard.event('change', moving);
    writeFileSync(moving, 'a longer content');
    expect(guard.flushing()).toEqual([moving]);
    // Read whole by that batch: the recheck finds nothing unseen.
    vi.advanceTimersByTime(RECHECK_AFTER_MS);
    expect(rechecks).toEqual([
      [still, false],
      [moving, false],
    ]);
    expect(changed).toEqual([]);
  });

  it('counts a write after the batch went out, within the throttle window, as a change', async () => {
    const { guard, changed, fileWith } = await guarded();
    const file = fileWith('index.ts', 'a');
    guard.event('change', file);
    expect(guard.flushing()).toEqual([]);
    writeFileSync(file, 'b, and longer');
    vi.advanceTimersByTime(RECHECK_AFTER_MS);
    expect(changed).toEqual([file]);
  });

  it('leaves a recheck that comes before the batch to the batch, and forgets a file deleted', async () => {
    const { guard, changed, rechecks, fileWith } = await guarded();
    const file = fileWith('index.ts', 'a');
    const gone = fileWith('helper.ts', 'a');
    guard.event('change', file);
    guard.event('add', gone);
    vi.advanceTimersByTime(RECHECK_AFTER_MS);
    expect(rechecks).toEqual([]);
    writeFileSync(file, 'b, and longer');
    rmSync(gone);
    guard.event('unlink', gone);
    // The batch reads the file as it is now; the deleted one is nothing to read or tell.
    expect(guard.flushing()).toEqual([file]);
    expect(rechecks).toEqual([[file, false]]);
    vi.advanceTimersByTime(10 * RECHECK_AFTER_MS);
    expect(changed).toEqual([]);
  });
});
