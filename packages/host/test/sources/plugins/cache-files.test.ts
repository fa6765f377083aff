/**
 * The bundle and manifest caches write behind the work that made their files (cache-files.ts
 * `CacheWrites`): these tests pin that nothing is read stale or lost on the way, whether the
 * writes go out after a quiet spell, at a flush (a host's close) or at the process's exit.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { CacheWrites, readJson, readText } from '../../../src/sources/plugins/cache-files.js';

const DIST_MODULE = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../dist/sources/plugins/cache-files.js',
);

const dirs: string[] = [];
async function folder(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'toolhost-cache-files-'));
  dirs.push(dir);
  return dir;
}

afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe('cache writes made behind', () => {
  it('wait while writes keep coming, and a later write of a file replaces the earlier', async () => {
    const dir = await folder();
    const writes = new CacheWrites(60_000);
    const file = path.join(dir, 'bundles', 'p.json');
    writes.write(file, '{"n":1}');
    writes.write(file, '{"n":2}');
    writes.write(path.join(dir, 'manifests', 'm.json'), '{}');
    expect(writes.size).toBe(2);
    expect(existsSync(file)).toBe(false);
    expect(writes.read(file)).toBe('{"n":2}');
    writes.flush();
    expect(writes.size).toBe(0);
    // Folders made as needed, the last data written, no temp file left beside it.
    expect(await readFile(file, 'utf8')).toBe('{"n":2}');
    expect(await readFile(path.join(dir, 'manifests', 'm.json'), 'utf8')).toBe('{}');
    expect((await import('node:fs')).readdirSync(path.dirname(file))).toEqual(['p.json']);
  });

  it('go out by themselves once the writes stop, a few per turn', async () => {
    const dir = await folder();
    const writes = new CacheWrites(5);
    const files = Array.from({ length: 40 }, (_, i) => path.join(dir, `f${i}.json`));
    for (const [i, file] of files.entries()) writes.write(file, JSON.stringify({ i }));
    await writes.drained();
    for (const [i, file] of files.entries()) expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ i });
    // Drained means drained: nothing waits, and another wait resolves at once.
    expect(writes.size).toBe(0);
    await writes.drained();
  });

  it('are read before they are written: the process never reads its own cache stale', async () => {
    const dir = await folder();
    const file = path.join(dir, 'manifests', 'x.json');
    const { cacheWrites } = await import('../../../src/sources/plugins/cache-files.js');
    cacheWrites.write(file, '{"ok":true}');
    try {
      expect(existsSync(file)).toBe(false);
      expect(readJson(file)).toEqual({ ok: true });
      expect(readText(file)).toBe('{"ok":true}');
    } finally {
      cacheWrites.flush();
    }
    expect(readJson(file)).toEqual({ ok: true });
    expect(existsSync(file)).toBe(true);
    expect(readJson(path.join(dir, 'none.json'))).toBeUndefined();
  });

  it('that cannot be written are dropped, and the others still written', async () => {
    const dir = await folder();
    const writes = new CacheWrites(60_000);
    // A file where a folder must be: the write under it fails.
    writes.write(path.join(dir, 'blocker'), 'x');
    writes.flush();
    writes.write(path.join(dir, 'blocker', 'under.json'), '{}');
    writes.write(path.join(dir, 'fine.json'), '{}');
    writes.flush();
    expect(writes.size).toBe(0);
    expect(existsSync(path.join(dir, 'fine.json'))).toBe(true);
  });

  it.each([
    ['process.exit()', 'process.exit(0);'],
    ['its natural end', ''],
  ])('are on disk when the process ends by %s', async (_how, ending) => {
    const dir = await folder();
    const file = path.join(dir, 'bundles', 'p.json');
    const script = `import { cacheWrites } from ${JSON.stringify(pathToFileURL(DIST_MODULE).href)};
cacheWrites.write(${JSON.stringify(file)}, '{"kept":true}');
${ending}`;
    execFileSync(process.execPath, ['--input-type=module', '-e', script], { stdio: 'pipe' });
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ kept: true });
  });
});
