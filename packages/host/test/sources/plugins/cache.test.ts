import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PluginCache } from '../../../src/sources/plugins/cache.js';

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
    return { root, dir, entry, secret, cacheDir, cache: new PluginCache(cacheDir) };
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
});
