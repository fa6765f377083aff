import { createHash } from 'node:crypto';
import { mkdir, readFile, realpath, rename, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { hostPreludeFingerprint } from '../../sandbox/isolate-script.js';
import { BUILD_RULES_VERSION, buildScope, inScope } from './confine.js';

/**
 * Everything that changes a bundle or a manifest besides the plugin's own files. The build rules
 * are part of it: a bundle built under older rules (before builds were confined to the plugin
 * folder, say) may hold host files, and must not be served again.
 */
function toolVersion(): string {
  // The SDK and zod are not in bundles: they come from the isolate's prelude (isolate-script.ts).
  return `toolhost-cache-2;${BUILD_RULES_VERSION};node-${process.versions.node};prelude-${hostPreludeFingerprint()}`;
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export async function writeAtomic(file: string, data: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(temp, data);
  await rename(temp, file);
}

export async function readJson<T>(file: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

interface BundleIndex {
  readonly version: string;
  readonly entry: string;
  /** sha256 of each input file's content, by absolute path. */
  readonly inputs: Record<string, string>;
  readonly bundleHash: string;
}

/**
 * Bundles and manifests under `.toolhost/cache/`, keyed by content hash. A cache problem never
 * fails a load: it only costs a rebuild. A cached bundle is used only when every file it was built
 * from still has the same content.
 */
export class PluginCache {
  readonly #dir: string;

  constructor(dir: string) {
    this.#dir = dir;
  }

  async #fresh(index: BundleIndex, entry: string, dir: string): Promise<boolean> {
    if (index.version !== toolVersion() || index.entry !== entry) return false;
    // Whatever wrote the index, a bundle made from a file a build may not read is never reused.
    const scope = await buildScope(dir);
    for (const [file, hash] of Object.entries(index.inputs)) {
      try {
        if (!inScope(scope, await realpath(file))) return false;
        if (sha256(await readFile(file, 'utf8')) !== hash) return false;
      } catch {
        return false;
      }
    }
    return true;
  }

  /**
   * The cached bundle of a plugin, if it was built under the current build rules and none of its
   * inputs changed or lies outside what the plugin's build (folder `dir`) may read.
   */
  async bundle(pluginId: string, entry: string, dir: string): Promise<string | undefined> {
    const index = await readJson<BundleIndex>(path.join(this.#dir, 'bundles', `${pluginId}.json`));
    if (index === undefined || !(await this.#fresh(index, entry, dir))) return undefined;
    try {
      const code = await readFile(path.join(this.#dir, 'bundles', `${index.bundleHash}.js`), 'utf8');
      return sha256(code) === index.bundleHash ? code : undefined;
    } catch {
      return undefined;
    }
  }

  async storeBundle(pluginId: string, entry: string, code: string, inputs: readonly string[]): Promise<void> {
    try {
      const hashes: Record<string, string> = {};
      for (const file of inputs) hashes[file] = sha256(await readFile(file, 'utf8'));
      const bundleHash = sha256(code);
      await writeAtomic(path.join(this.#dir, 'bundles', `${bundleHash}.js`), code);
      const index: BundleIndex = { version: toolVersion(), entry, inputs: hashes, bundleHash };
      await writeAtomic(path.join(this.#dir, 'bundles', `${pluginId}.json`), JSON.stringify(index));
    } catch {
      // A read-only or full disk only costs a rebuild next time.
    }
  }

  #manifestFile(bundle: string, configJson: string): string {
    return path.join(
      this.#dir,
      'manifests',
      `${sha256(`${toolVersion()}\n${sha256(bundle)}\n${configJson}`)}.json`,
    );
  }

  /** A manifest read earlier from the same bundle with the same config (as raw, unvalidated JSON). */
  manifest(bundle: string, configJson: string): Promise<unknown> {
    return readJson<unknown>(this.#manifestFile(bundle, configJson));
  }

  async storeManifest(bundle: string, configJson: string, reply: unknown): Promise<void> {
    try {
      await writeAtomic(this.#manifestFile(bundle, configJson), JSON.stringify(reply));
    } catch {
      // As above: only a cost.
    }
  }
}
