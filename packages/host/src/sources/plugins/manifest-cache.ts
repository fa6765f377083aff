import * as path from 'node:path';
import { sha256, toolVersion } from './cache.js';
import { cacheWrites, projectOf, readJson } from './cache-files.js';

/**
 * Manifests under `.toolhost/cache/manifests/`: a describe's reply, keyed by the bundle's hash,
 * the plugin's config and the tool version, so an unchanged plugin is not described again. A
 * cache problem never fails a load: it only costs a describe.
 */
export class ManifestCache {
  readonly #dir: string;
  /** The project's folder: a write waits only while it is there. */
  readonly #root: string;

  /** `dir`: the cache folder, `<root>/.toolhost/cache`. */
  constructor(dir: string) {
    this.#dir = dir;
    this.#root = projectOf(dir);
  }

  /** `bundleHash`: sha256 of the bundle, computed once by the caller for everything keyed by it. */
  #manifestFile(bundleHash: string, configJson: string): string {
    return path.join(
      this.#dir,
      'manifests',
      `${sha256(`${toolVersion()}\n${bundleHash}\n${configJson}`)}.json`,
    );
  }

  /** A manifest read earlier from the same bundle with the same config (as raw, unvalidated JSON). */
  manifest(bundleHash: string, configJson: string): unknown {
    return readJson<unknown>(this.#manifestFile(bundleHash, configJson));
  }

  /** Written behind (cache-files.ts `CacheWrites`); a read before then gets it all the same. */
  storeManifest(bundleHash: string, configJson: string, reply: unknown): void {
    cacheWrites.write(this.#manifestFile(bundleHash, configJson), JSON.stringify(reply), this.#root);
  }
}
