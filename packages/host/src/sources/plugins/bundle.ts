import * as path from 'node:path';
import type { BundleOutcome } from './build-context.js';
import { type BuildLimits, DEFAULT_BUILD_LIMITS } from './build-limits.js';
import { type BuildService, sharedBuildService } from './build-service.js';

export type { BundleOutcome } from './build-context.js';

/** How to build one plugin. */
export interface BundleOptions {
  /**
   * The plugin's folder: the build reads nothing of the plugin outside it. Default: the entry's
   * folder (give it when the entry is in a subfolder, as `package.json` `main` allows).
   */
  readonly root?: string;
  /** What one build may consume; default {@link DEFAULT_BUILD_LIMITS}. */
  readonly limits?: Partial<BuildLimits>;
  /** Where the build runs; default the process's shared build worker (tests give their own). */
  readonly service?: BuildService;
}

/** Names one plugin's esbuild context in the build worker. */
let nextKey = 1;

function jobOf(entry: string, options: BundleOptions, once: boolean) {
  return {
    entry,
    root: path.resolve(options.root ?? path.dirname(entry)),
    limits: { ...DEFAULT_BUILD_LIMITS, ...options.limits },
    once,
  };
}

/**
 * Bundles a plugin entry into one script for the isolate. The build reads only the plugin's folder
 * and the host's SDK and zod, with code and JSON loaders only, within its limits. Never throws.
 */
export function bundlePlugin(entry: string, options: BundleOptions = {}): Promise<BundleOutcome> {
  return (options.service ?? sharedBuildService()).build(nextKey++, jobOf(entry, options, true));
}

/** An incremental bundler for one plugin: rebuilds reuse esbuild's cache (watch mode). */
export interface IncrementalBundler {
  rebuild(): Promise<BundleOutcome>;
  dispose(): Promise<void>;
}

/** An incremental bundler, confined and limited exactly as {@link bundlePlugin}. */
export function createIncrementalBundler(entry: string, options: BundleOptions = {}): IncrementalBundler {
  const service = options.service ?? sharedBuildService();
  const key = nextKey++;
  const job = jobOf(entry, options, false);
  return {
    rebuild: () => service.build(key, job),
    dispose: async () => service.dispose(key),
  };
}
