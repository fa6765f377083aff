/**
 * The bundle and manifest caches write behind the work that made their files (cache-files.ts
 * `CacheWrites`): these tests pin when the writes go out (after a quiet spell, never later than
 * the longest wait, a few per turn, at a flush, at the process's exit), that nothing is read
 * stale meanwhile, and that a write whose project is gone is dropped, not made.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  CacheWrites,
  cacheWrites,
  FILES_PER_TURN,
  readJson,
  readText,
} from '../../../src/sources/plugins/cache-files.js';

const DIST_MODULE = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../dist/sources/plugins/cache-files.js',
);

const dirs: string[] = [];
async function project(): Promise<{ root: string; cache: string }> {
  const root = await mkdtemp(path.join(tmpdir(), 'toolhost-cache-files-'));
  dirs.push(root);
  return { root, cache: path.join(root, '.toolhost', 'cache') };
}

afterEach(async () => {
  vi.useRealTimers();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** The timers `CacheWrites` uses, faked; promises and I/O stay real. */
const FAKED = {
  toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'performance'],
} satisfies Parameters<typeof vi.useFakeTimers>[0];

describe('cache writes made behind', () => {
  it('wait while writes keep coming, and a later write of a file replaces the earlier', async () => {
    const { root, cache } = await project();
    vi.useFakeTimers(FAKED);
    const writes = new CacheWrites(250, 2_000);
    const file = path.join(cache, 'bundles', 'p.json');
    writes.write(file, '{"n":1}', root);
    vi.advanceTimersByTime(200);
    writes.write(file, '{"n":2}', root);
    writes.write(path.join(cache, 'manifests', 'm.json'), '{}', root);
    // 400 ms after the first write, 200 after the last: still waiting.
    vi.advanceTimersByTime(200);
    expect(existsSync(file)).toBe(false);
    expect(writes.size).toBe(2);
    expect(writes.read(file)).toBe('{"n":2}');
    vi.advanceTimersByTime(60);
    expect(writes.size).toBe(0);
    // Folders made as needed, the last data written, no temp file left beside it.
    expect(await readFile(file, 'utf8')).toBe('{"n":2}');
    expect(await readFile(path.join(cache, 'manifests', 'm.json'), 'utf8')).toBe('{}');
    expect(readdirSync(path.dirname(file))).toEqual(['p.json']);
  });

  it('never wait longer than the longest wait while writes keep coming', async () => {
    const { root, cache } = await project();
    vi.useFakeTimers(FAKED);
    const writes = new CacheWrites(250, 1_000);
    const first = path.join(cache, 'f0.json');
    writes.write(first, '{"i":0}', root);
    // A write every 100 ms, for 2 s: a quiet spell never comes.
    for (let i = 1; i <= 20; i++) {
      vi.advanceTimersByTime(100);
      writes.write(path.join(cache, `f${i}.json`), JSON.stringify({ i }), root);
      if (i * 100 < 750) expect(existsSync(first)).toBe(false);
    }
    expect(JSON.parse(await readFile(first, 'utf8'))).toEqual({ i: 0 });
  });

  it(`go out ${FILES_PER_TURN} per turn of the event loop`, async () => {
    const { root, cache } = await project();
    vi.useFakeTimers(FAKED);
    const writes = new CacheWrites(250, 2_000);
    const files = Array.from({ length: 40 }, (_, i) => path.join(cache, `f${i}.json`));
    for (const [i, file] of files.entries()) writes.write(file, JSON.stringify({ i }), root);
    const drained = writes.drained();
    const onDisk = () => files.filter((file) => existsSync(file)).length;
    vi.advanceTimersToNextTimer();
    expect(onDisk()).toBe(FILES_PER_TURN);
    vi.advanceTimersToNextTimer();
    expect(onDisk()).toBe(2 * FILES_PER_TURN);
    vi.advanceTimersToNextTimer();
    expect(onDisk()).toBe(40);
    await drained;
    for (const [i, file] of files.entries()) expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ i });
    // Drained means drained: nothing waits, and another wait resolves at once.
    expect(writes.size).toBe(0);
    await writes.drained();
  });

  it('are read before they are written: the process never reads its own cache stale', async () => {
    const { root, cache } = await project();
    const file = path.join(cache, 'manifests', 'x.json');
    cacheWrites.write(file, '{"ok":true}', root);
    try {
      expect(existsSync(file)).toBe(false);
      expect(readJson(file)).toEqual({ ok: true });
      expect(readText(file)).toBe('{"ok":true}');
    } finally {
      cacheWrites.flush();
    }
    expect(readJson(file)).toEqual({ ok: true });
    expect(existsSync(file)).toBe(true);
    expect(readJson(path.join(root, 'none.json'))).toBeUndefined();
  });

  it('whose project is gone are dropped, not made; one that fails does not stop the others', async () => {
    const { root, cache } = await project();
    const gone = path.join(root, 'gone');
    await mkdir(gone);
    const writes = new CacheWrites(60_000);
    writes.write(path.join(gone, '.toolhost', 'cache', 'bundles', 'p.json'), '{}', gone);
    await rm(gone, { recursive: true });
    // A file where a folder must be: the write under it fails.
    writes.write(path.join(cache, 'blocker'), 'x', root);
    writes.flush();
    writes.write(path.join(cache, 'blocker', 'under.json'), '{}', root);
    writes.write(path.join(cache, 'fine.json'), '{}', root);
    writes.flush();
    expect(writes.size).toBe(0);
    expect(existsSync(gone)).toBe(false);
    expect(existsSync(path.join(cache, 'fine.json'))).toBe(true);
  });

  it.each([
    ['process.exit()', 'process.exit(0);'],
    ['its natural end (the waiting timer keeps no process alive)', ''],
  ])('are on disk when the process ends by %s', async (_how, ending) => {
    const { root, cache } = await project();
    const file = path.join(cache, 'bundles', 'p.json');
    const script = `import { CacheWrites } from ${JSON.stringify(pathToFileURL(DIST_MODULE).href)};
new CacheWrites(60_000, 60_000).write(${JSON.stringify(file)}, '{"kept":true}', ${JSON.stringify(root)});
${ending}`;
    // A timer that kept the process alive would hold it 60 s: past this timeout, the test fails.
    execFileSync(process.execPath, ['--input-type=module', '-e', script], { stdio: 'pipe', timeout: 20_000 });
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ kept: true });
  });
});
