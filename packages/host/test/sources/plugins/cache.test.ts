import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, realpath, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { bundlePlugin } from '../../../src/sources/plugins/bundle.js';
import { BundleCache, FileSurvey } from '../../../src/sources/plugins/cache.js';
import { cacheWrites } from '../../../src/sources/plugins/cache-files.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('the bundle cache', () => {
  const roots: string[] = [];

  afterEach(async () => {
    await Promise.all(roots.splice(0).map((root) => rm(root, { recursive: true, force: true })));
  });

  /** A project with a plugin `p` and a host secret beside `plugins/`. */
  async function project() {
    const root = await realpath(await mkdtemp(path.join(tmpdir(), 'toolhost-cache-')));
    roots.push(root);
    const dir = path.join(root, 'plugins', 'p');
    await mkdir(dir, { recursive: true });
    const entry = path.join(dir, 'index.ts');
    await writeFile(entry, 'export default 1;\n');
    const secret = path.join(root, 'toolhost.config.json');
    await writeFile(secret, '{"token":"SECRET-c1"}');
    const cacheDir = path.join(root, '.toolhost', 'cache');
    return { root, dir, entry, secret, cacheDir, cache: new BundleCache(cacheDir) };
  }

  it('does not serve a bundle cached under older build rules (made before builds were confined)', async () => {
    const { dir, entry, secret, cacheDir, cache } = await project();
    // What the cache of the previous release holds for a plugin that carried the config away.
    const code = 'var leaked = "SECRET-c1";';
    const inputs = { [entry]: sha256('export default 1;\n'), [secret]: sha256('{"token":"SECRET-c1"}') };
    await mkdir(path.join(cacheDir, 'bundles'), { recursive: true });
    await writeFile(path.join(cacheDir, 'bundles', `${sha256(code)}.js`), code);
    await writeFile(
      path.join(cacheDir, 'bundles', 'p.json'),
      JSON.stringify({
        version: `toolhost-cache-1;node-${process.versions.node}`,
        entry,
        inputs,
        bundleHash: sha256(code),
      }),
    );
    expect(await cache.bundle('p', entry, dir)).toBeUndefined();
  });

  it('does not serve a bundle of the previous release, which carries its own SDK and zod', async () => {
    const { dir, entry, cacheDir, cache } = await project();
    // The index the previous release wrote: its rules, its cache version, the plugin's entry only.
    const code = 'var ZodType = class {}; registerPlugin(definePlugin({}));';
    await mkdir(path.join(cacheDir, 'bundles'), { recursive: true });
    await writeFile(path.join(cacheDir, 'bundles', `${sha256(code)}.js`), code);
    await writeFile(
      path.join(cacheDir, 'bundles', 'p.json'),
      JSON.stringify({
        version: `toolhost-cache-2;confined-1;node-${process.versions.node}`,
        entry,
        inputs: { [entry]: sha256('export default 1;\n') },
        bundleHash: sha256(code),
      }),
    );
    expect(await cache.bundle('p', entry, dir)).toBeUndefined();
  });

  it('does not serve a bundle made from a file outside the plugin folder, whatever wrote it', async () => {
    const { dir, entry, secret, cache } = await project();
    await cache.storeBundle('p', entry, 'var leaked = "SECRET-c1";', [entry, secret]);
    expect(await cache.bundle('p', entry, dir)).toBeUndefined();
  });

  it("serves a bundle of the plugin's own files while they are unchanged, and not after an edit", async () => {
    const { dir, entry, cache } = await project();
    await cache.storeBundle('p', entry, 'var ok = 1;', [entry]);
    expect(await cache.bundle('p', entry, dir)).toBe('var ok = 1;');
    await writeFile(entry, 'export default 2;\n');
    expect(await cache.bundle('p', entry, dir)).toBeUndefined();
  });

  it('does not serve a bundle after an edit of a file the entry imports (not only the entry)', async () => {
    const { dir, entry, cache } = await project();
    const helper = path.join(dir, 'helper.ts');
    await writeFile(helper, "export const word = 'one';\n");
    await writeFile(
      entry,
      `import { definePlugin, defineTool } from '@toolhost/plugin-sdk';
import * as z from 'zod';
import { word } from './helper.js';
export default definePlugin({ id: 'p', tools: [defineTool({ name: 'p_word', description: 'w', input: z.object({}), execute: () => word })] });
`,
    );
    const built = await bundlePlugin(entry, { root: dir });
    if (!built.ok) throw new Error(built.error);
    expect(built.inputs).toContain(helper);
    await cache.storeBundle('p', entry, built.code, built.inputs);
    expect(await cache.bundle('p', entry, dir)).toBe(built.code);
    await writeFile(helper, "export const word = 'two';\n");
    expect(await cache.bundle('p', entry, dir)).toBeUndefined();
  });

  it('takes an input whose size and mtime are as recorded as unchanged without reading it; a touched one is read, still served, and its new mtime recorded', async () => {
    const { dir, entry, cacheDir, cache } = await project();
    const past = new Date(Date.now() - 3_600_000);
    await utimes(entry, past, past);
    await cache.storeBundle('p', entry, 'var ok = 1;', [entry]);
    const hashes = vi.spyOn(FileSurvey.prototype, 'hash');
    try {
      expect(await cache.bundle('p', entry, dir)).toBe('var ok = 1;');
      expect(hashes).not.toHaveBeenCalled();

      const touched = new Date(Date.now() - 60_000);
      await utimes(entry, touched, touched);
      expect(await cache.bundle('p', entry, dir)).toBe('var ok = 1;');
      expect(hashes).toHaveBeenCalledTimes(1);
      // Written behind (cache-files.ts); on disk once flushed.
      cacheWrites.flush();
      const index = JSON.parse(await readFile(path.join(cacheDir, 'bundles', 'p.json'), 'utf8'));
      expect(index.inputs[entry].mtimeMs).toBe((await stat(entry)).mtimeMs);

      // The recorded stat answers the next check.
      expect(await cache.bundle('p', entry, dir)).toBe('var ok = 1;');
      expect(hashes).toHaveBeenCalledTimes(1);
    } finally {
      hashes.mockRestore();
    }
  });

  it('hashes a file modified just before it was stored at every check (an edit in the same clock tick keeps the mtime)', async () => {
    const { dir, entry, cache } = await project();
    // A whole-millisecond mtime, so that it can be set back exactly.
    const tick = new Date(Math.floor(Date.now() / 1000) * 1000);
    await utimes(entry, tick, tick);
    await cache.storeBundle('p', entry, 'var ok = 1;', [entry]);
    // Same size, same mtime (an edit in the same tick): only the content tells.
    await writeFile(entry, 'export default 9;\n');
    await utimes(entry, tick, tick);
    expect((await stat(entry)).mtimeMs).toBe(tick.getTime());
    expect(await cache.bundle('p', entry, dir)).toBeUndefined();
  });
});
