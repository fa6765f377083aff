import { createHash } from 'node:crypto';
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { hostPreludeFingerprint } from '../../sandbox/isolate-script.js';
import { cacheWrites, projectOf, readJson, readText } from './cache-files.js';
import { BUILD_RULES_VERSION, buildScope, inScope } from './confine.js';

/**
 * Everything that changes a bundle or a manifest besides the plugin's own files. The build rules
 * are part of it: a bundle built under older rules (before builds were confined to the plugin
 * folder, say) may hold host files, and must not be served again.
 */
export function toolVersion(): string {
  // The SDK and zod are not in bundles: they come from the isolate's prelude (isolate-script.ts).
  return `toolhost-cache-3;${BUILD_RULES_VERSION};node-${process.versions.node};prelude-${hostPreludeFingerprint()}`;
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** One input of a cached bundle: its content hash, and the stat under which it was hashed. */
interface InputRecord {
  readonly hash: string;
  readonly size: number;
  /**
   * Absent when the file was modified too close to the hashing for its mtime to be trusted (an
   * edit within the same clock tick keeps the mtime): such a file is hashed at every check.
   */
  readonly mtimeMs?: number;
}

interface BundleIndex {
  readonly version: string;
  readonly entry: string;
  /** Each input file by absolute path. */
  readonly inputs: Record<string, InputRecord>;
  readonly bundleHash: string;
}

/** A file whose mtime is this close to the moment it was hashed is hashed again at every check. */
const RACY_MS = 2_000;

function recordOf(hash: string, info: { size: number; mtimeMs: number }, now: number): InputRecord {
  return now - info.mtimeMs > RACY_MS
    ? { hash, size: info.size, mtimeMs: info.mtimeMs }
    : { hash, size: info.size };
}

/** What one check of the cache learns about a file, shared by every plugin checked in one pass. */
interface FileFacts {
  readonly real: string;
  readonly size: number;
  readonly mtimeMs: number;
  /** Read only when the stat does not match what the index holds. */
  hash?: Promise<string>;
}

/**
 * Facts about files for one pass over the plugins (a start, a refresh): the host's SDK and zod are
 * inputs of every plugin, and are looked at once per pass, not once per plugin. Never reused
 * across passes: a file may change between them.
 */
export class FileSurvey {
  readonly #files = new Map<string, FileFacts | undefined>();

  /** A stat and a realpath, synchronous for the reason `readJson` is. */
  facts(file: string): FileFacts | undefined {
    if (this.#files.has(file)) return this.#files.get(file);
    let facts: FileFacts | undefined;
    try {
      const info = statSync(file);
      facts = info.isFile()
        ? { real: realpathSync(file), size: info.size, mtimeMs: info.mtimeMs }
        : undefined;
    } catch {
      facts = undefined;
    }
    this.#files.set(file, facts);
    return facts;
  }

  hash(file: string, facts: FileFacts): Promise<string> {
    facts.hash ??= readFile(file, 'utf8').then(sha256);
    return facts.hash;
  }
}

/**
 * Bundles under `.toolhost/cache/bundles/`, keyed by content hash (manifests are apart, in
 * `manifest-cache.ts`). A cache problem never fails a load: it only costs a rebuild. A cached bundle is used only when every file it was built
 * from still has the same content: a file whose size and mtime are those recorded is taken as
 * unchanged; one whose stat differs is hashed, and if its content is the same (a `touch`, a
 * checkout that rewrote it) the bundle is still served and the new stat recorded.
 */
export class BundleCache {
  readonly #dir: string;
  /** The project's folder (`dir` is its `.toolhost/cache`): a write waits only while it is there. */
  readonly #root: string;

  /** `dir`: the cache folder, `<root>/.toolhost/cache`. */
  constructor(dir: string) {
    this.#dir = dir;
    this.#root = projectOf(dir);
  }

  /** Fresh (and the index to write back when a stat moved under equal content), or not fresh. */
  async #fresh(
    index: BundleIndex,
    entry: string,
    dir: string,
    files: FileSurvey,
  ): Promise<{ updated?: BundleIndex } | undefined> {
    if (index.version !== toolVersion() || index.entry !== entry) return undefined;
    // Whatever wrote the index, a bundle made from a file a build may not read is never reused.
    const scope = await buildScope(dir);
    const now = Date.now();
    let moved: Record<string, InputRecord> | undefined;
    const checks = Object.entries(index.inputs).map(async ([file, record]) => {
      const facts = files.facts(file);
      if (facts === undefined || !inScope(scope, facts.real) || typeof record?.hash !== 'string')
        return false;
      if (record.mtimeMs === facts.mtimeMs && record.size === facts.size) return true;
      if ((await files.hash(file, facts)) !== record.hash) return false;
      moved ??= {};
      moved[file] = recordOf(record.hash, facts, now);
      return true;
    });
    if (!(await Promise.all(checks)).every(Boolean)) return undefined;
    return moved === undefined ? {} : { updated: { ...index, inputs: { ...index.inputs, ...moved } } };
  }

  /**
   * The cached bundle of a plugin, if it was built under the current build rules and none of its
   * inputs changed or lies outside what the plugin's build (folder `dir`) may read. `files` is the
   * current pass's view of the disk (a new one each time when absent).
   */
  async bundle(
    pluginId: string,
    entry: string,
    dir: string,
    files: FileSurvey = new FileSurvey(),
  ): Promise<string | undefined> {
    const indexFile = path.join(this.#dir, 'bundles', `${pluginId}.json`);
    const index = readJson<BundleIndex>(indexFile);
    if (index === undefined || typeof index.inputs !== 'object' || index.inputs === null) return undefined;
    const fresh = await this.#fresh(index, entry, dir, files);
    if (fresh === undefined) return undefined;
    let code: string;
    try {
      code = readText(path.join(this.#dir, 'bundles', `${index.bundleHash}.js`));
    } catch {
      return undefined;
    }
    if (sha256(code) !== index.bundleHash) return undefined;
    // Next time the new stat answers without reading the file.
    if (fresh.updated !== undefined) cacheWrites.write(indexFile, JSON.stringify(fresh.updated), this.#root);
    return code;
  }

  /**
   * Keeps a bundle and the stat and hash of each of its inputs: hashed now (a file edited later
   * must not be recorded under this bundle), written behind (cache-files.ts `CacheWrites`).
   */
  storeBundle(pluginId: string, entry: string, code: string, inputs: readonly string[]): void {
    try {
      const records: Record<string, InputRecord> = {};
      const now = Date.now();
      for (const file of inputs) {
        // The stat first: a file edited after it is hashed under an older stat, and checked again.
        const info = statSync(file);
        records[file] = recordOf(sha256(readFileSync(file, 'utf8')), info, now);
      }
      const bundleHash = sha256(code);
      cacheWrites.write(path.join(this.#dir, 'bundles', `${bundleHash}.js`), code, this.#root);
      const index: BundleIndex = { version: toolVersion(), entry, inputs: records, bundleHash };
      cacheWrites.write(
        path.join(this.#dir, 'bundles', `${pluginId}.json`),
        JSON.stringify(index),
        this.#root,
      );
    } catch {
      // An input gone meanwhile only costs a rebuild next time.
    }
  }
}
