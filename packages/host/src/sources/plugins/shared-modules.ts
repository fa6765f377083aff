import * as path from 'node:path';
import type * as esbuild from 'esbuild';
import { SHARED_GLOBAL, SHARED_MODULES } from '../../sandbox/isolate-script.js';

/** The namespace of the modules a plugin bundle takes from its isolate's prelude. */
export const SHARED_NAMESPACE = 'toolhost-shared';
/** The module that takes the prelude's table; imported first by the generated entry, and only there. */
export const SHARED_TABLE = 'toolhost:shared-table';

const shared = new Set<string>(SHARED_MODULES);

/** The generated entry of a plugin build (esbuild's stdin); esbuild names it `<resolveDir>/<this>`. */
export const ENTRY_SOURCEFILE = '<toolhost-entry>';

/** Each shared module with its export names. */
export type SharedExports = readonly (readonly [string, readonly string[]])[];

let exportNames: Promise<ReadonlyMap<string, readonly string[]>> | undefined;

/**
 * The export names of every shared module: given ({@link useSharedExports}), or read once by
 * importing them. Sorted, as a native module namespace lists them: a bundle's text (and so its
 * cache key, and a quarantine's fingerprint) must not depend on which thread or loader found them
 * (Vitest's module objects list them in source order).
 */
function exportMap(): Promise<ReadonlyMap<string, readonly string[]>> {
  exportNames ??= Promise.all(
    SHARED_MODULES.map(async (name) => [name, Object.keys(await import(name)).sort()] as const),
  ).then((entries) => new Map(entries));
  return exportNames;
}

/**
 * The export names of every shared module, read from the host's own copies (the ones the prelude
 * holds). The build worker is given them by the thread that starts it ({@link useSharedExports}):
 * there the modules are loaded already (the host's own code imports zod and the SDK), and the
 * names cost ≈ 13 ms of CPU against ≈ 110 ms in a fresh worker thread, whose first build waited
 * for them (a process's first plugin build took 107 ms against 14-18 for the next ones, the
 * import most of the difference; 2-core machine, Node 24).
 */
export async function sharedExports(): Promise<SharedExports> {
  return [...(await exportMap())];
}

/** Takes `names` (from {@link sharedExports} of the thread that started this one) instead of importing the modules. */
export function useSharedExports(names: SharedExports): void {
  exportNames ??= Promise.resolve(new Map(names));
}

/**
 * The table module: the prelude's table, taken from the global and deleted from it. It has no
 * imports, so it is evaluated first, before any plugin module; `pick` is pure for esbuild, so a
 * binding no plugin module uses is dropped from the bundle.
 */
const TABLE_SOURCE = [
  `const g = globalThis;`,
  `const table = g[${JSON.stringify(SHARED_GLOBAL)}];`,
  `delete g[${JSON.stringify(SHARED_GLOBAL)}];`,
  `if (table === undefined) throw new Error('the plugin bundle runs only after the toolhost prelude');`,
  `export const pick = (name, key) => {`,
  `  const module = table[name];`,
  `  if (module === undefined) throw new Error('the toolhost prelude does not hold ' + name);`,
  `  return module[key];`,
  `};`,
  '',
].join('\n');

/** A shared module as the bundle sees it: each export a binding of the prelude's module. */
function moduleSource(name: string, names: readonly string[]): string {
  const lines = [`import { pick } from ${JSON.stringify(SHARED_TABLE)};`];
  const exported: string[] = [];
  names.forEach((key, i) => {
    lines.push(`const e${i} = /* @__PURE__ */ pick(${JSON.stringify(name)}, ${JSON.stringify(key)});`);
    exported.push(`e${i} as ${JSON.stringify(key)}`);
  });
  lines.push(`export { ${exported.join(', ')} };`, '');
  return lines.join('\n');
}

/**
 * Resolves the SDK and zod entry points of `SHARED_MODULES` to the isolate prelude's copies
 * instead of bundling them: every plugin isolate holds one SDK and one zod, compiled once per
 * process (see sandbox/prelude.ts), and a bundle holds only the plugin's own code. Other subpaths
 * of those packages fall through to the confinement plugin and are bundled as before.
 */
export const sharedModulesPlugin: esbuild.Plugin = {
  name: 'toolhost-shared-modules',
  setup(build) {
    build.onResolve({ filter: /^(@toolhost\/plugin-sdk|zod|toolhost:shared-table)(\/.*)?$/ }, (args) => {
      if (args.path === SHARED_TABLE) {
        // Only the generated entry and the shared modules reach the table: a plugin's own import
        // of it falls through to the confinement plugin, which cannot resolve it. (No plugin file
        // can pose as the entry: a file without a code extension is never loaded.)
        const fromEntry = path.basename(args.importer) === ENTRY_SOURCEFILE;
        if (!fromEntry && args.namespace !== SHARED_NAMESPACE) return undefined;
        return { path: SHARED_TABLE, namespace: SHARED_NAMESPACE };
      }
      if (!shared.has(args.path)) return undefined;
      return { path: args.path, namespace: SHARED_NAMESPACE, sideEffects: false };
    });
    build.onLoad({ filter: /.*/, namespace: SHARED_NAMESPACE }, async (args) => {
      if (args.path === SHARED_TABLE) return { contents: TABLE_SOURCE, loader: 'js' };
      const names = (await exportMap()).get(args.path) ?? [];
      return { contents: moduleSource(args.path, names), loader: 'js' };
    });
  },
};
