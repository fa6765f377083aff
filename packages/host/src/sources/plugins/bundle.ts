import * as path from 'node:path';
import * as esbuild from 'esbuild';
import { type BundleOutcome, formatMessages, sharedOptions } from './build-context.js';
import { type BuildLimits, DEFAULT_BUILD_LIMITS } from './build-limits.js';
import { sharedBuildService } from './build-service.js';
import { hostDir } from './confine.js';
import { nodeBuiltinsPlugin } from './node-builtins.js';

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
  return sharedBuildService().build(nextKey++, jobOf(entry, options, true));
}

/** An incremental bundler for one plugin: rebuilds reuse esbuild's cache (watch mode). */
export interface IncrementalBundler {
  rebuild(): Promise<BundleOutcome>;
  dispose(): Promise<void>;
}

/** An incremental bundler, confined and limited exactly as {@link bundlePlugin}. */
export async function createIncrementalBundler(
  entry: string,
  options: BundleOptions = {},
): Promise<IncrementalBundler> {
  const service = sharedBuildService();
  const key = nextKey++;
  const job = jobOf(entry, options, false);
  return {
    rebuild: () => service.build(key, job),
    dispose: async () => service.dispose(key),
  };
}

/** Resolves the SDK and zod from the host for the runtime build (plugin builds do it while confining). */
const hostPackagesPlugin: esbuild.Plugin = {
  name: 'toolhost-host-packages',
  setup(build) {
    build.onResolve({ filter: /^(@toolhost\/plugin-sdk|zod)(\/.*)?$/ }, async (args) => {
      if (args.pluginData === 'from-host') return undefined;
      const resolved = await build.resolve(args.path, {
        kind: args.kind,
        resolveDir: hostDir,
        pluginData: 'from-host',
      });
      if (resolved.errors.length > 0) return { errors: resolved.errors };
      return { path: resolved.path };
    });
  },
};

let runtimeScript: Promise<string> | undefined;

/** The in-isolate runtime as one script, built once per process from the host's SDK. */
export function loadRuntimeScript(): Promise<string> {
  runtimeScript ??= esbuild
    .build({
      ...sharedOptions,
      absWorkingDir: hostDir,
      plugins: [nodeBuiltinsPlugin, hostPackagesPlugin],
      stdin: {
        contents: `import '@toolhost/plugin-sdk/runtime';\n`,
        resolveDir: hostDir,
        sourcefile: '<toolhost-runtime>',
        loader: 'js',
      },
    })
    .then((result) => {
      const code = result.outputFiles?.[0]?.text;
      if (code === undefined)
        throw new Error(`cannot build the sandbox runtime: ${formatMessages(result.errors, hostDir)}`);
      return code;
    });
  return runtimeScript;
}
