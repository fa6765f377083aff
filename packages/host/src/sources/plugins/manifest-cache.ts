import * as path from 'node:path';
import type { DescribeReply } from '@toolhost/plugin-sdk/protocol';
import { sha256, toolVersion } from './cache.js';
import { cacheWrites, projectOf, readText } from './cache-files.js';
import { manifestRules } from './manifest.js';

/**
 * Whether `reply` has the shape of a stored conclusion, so that a file with a right sum and a
 * wrong shape (written by hand) costs a describe, not a load that fails on a missing field.
 */
function wellFormed(reply: unknown): reply is DescribeReply {
  if (typeof reply !== 'object' || reply === null) return false;
  const { ok, manifest, error } = reply as { ok?: unknown; manifest?: unknown; error?: unknown };
  if (ok === false) return typeof error === 'string';
  if (ok !== true || typeof manifest !== 'object' || manifest === null) return false;
  const { id, tools } = manifest as { id?: unknown; tools?: unknown };
  return typeof id === 'string' && Array.isArray(tools);
}

/**
 * Manifests under `.toolhost/cache/manifests/`: what checking a describe's reply concluded
 * (`parseDescribeReply`: the manifest, or why it is refused), keyed by the bundle's hash, the
 * plugin's config, the tool version and the code of that check (`manifestRules`), so an unchanged plugin is
 * neither described nor checked again. A cache problem never fails a load: it only costs a
 * describe.
 *
 * A file holds the sha256 of its JSON on its first line, then the JSON. A file whose JSON does
 * not match its sum (cut short, damaged on disk, edited by hand, written by an older toolhost as
 * bare JSON) is not read: the plugin is described again and the file written anew. The sum is
 * about damage, not trust: plugins can never write under `.toolhost/` (`ControlGuard`), and
 * whoever can is the operator, who can also edit the config.
 *
 * Why not check the reply again at each start: at 100 plugins that check is ≈ 25 ms of a ≈ 130 ms
 * warm start on a two-core machine (zod's code runs cold once per process), while the sum and the
 * parse cost ≈ 10 µs a file (bench/scale.mjs, warm start).
 */
export class ManifestCache {
  readonly #dir: string;
  /** The project's folder: a write waits only while it is there. */
  readonly #root: string;

  /** The fingerprint of the checks whose conclusions this cache keeps (`manifestRules`). */
  readonly #rules: string;

  /** `dir`: the cache folder, `<root>/.toolhost/cache`; `rules`: for tests, other checks' fingerprint. */
  constructor(dir: string, rules: string = manifestRules()) {
    this.#dir = dir;
    this.#root = projectOf(dir);
    this.#rules = rules;
  }

  /** `bundleHash`: sha256 of the bundle, computed once by the caller for everything keyed by it. */
  #manifestFile(bundleHash: string, configJson: string): string {
    const key = `${toolVersion()}\n${this.#rules}\n${bundleHash}\n${configJson}`;
    return path.join(this.#dir, 'manifests', `${sha256(key)}.json`);
  }

  /** What the check of a reply from the same bundle with the same config concluded, if stored intact. */
  manifest(bundleHash: string, configJson: string): DescribeReply | undefined {
    let text: string;
    try {
      text = readText(this.#manifestFile(bundleHash, configJson));
    } catch {
      return undefined;
    }
    const newline = text.indexOf('\n');
    if (newline !== 64) return undefined;
    const json = text.slice(newline + 1);
    if (sha256(json) !== text.slice(0, newline)) return undefined;
    try {
      const reply = JSON.parse(json) as unknown;
      return wellFormed(reply) ? reply : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * Stores the conclusion of `parseDescribeReply` (only that: never a reply it has not checked).
   * Written behind (cache-files.ts `CacheWrites`); a read before then gets it all the same.
   */
  storeManifest(bundleHash: string, configJson: string, checked: DescribeReply): void {
    const json = JSON.stringify(checked);
    cacheWrites.write(this.#manifestFile(bundleHash, configJson), `${sha256(json)}\n${json}`, this.#root);
  }
}
