import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import * as path from 'node:path';
import type * as esbuild from 'esbuild';
import { PACKAGE_ROOT } from '../util/package.js';
import { MINI_MODULES, type PreludeKind, SHARED_GLOBAL } from './prelude-kind.js';

export { type PreludeKind, preludeKindOf, SHARED_GLOBAL } from './prelude-kind.js';

/** What every script built for an isolate shares: one IIFE, no Node, the language V8 runs there. */
export const ISOLATE_SCRIPT_OPTIONS: esbuild.BuildOptions = {
  bundle: true,
  format: 'iife',
  platform: 'neutral',
  target: 'es2022',
  mainFields: ['module', 'main'],
  conditions: ['import', 'default'],
  write: false,
  metafile: true,
  logLevel: 'silent',
  legalComments: 'none',
  charset: 'utf8',
};

/**
 * The modules every plugin isolate holds once, in its prelude, and plugin bundles import instead
 * of carrying a copy: the SDK a plugin imports at run time, and zod's entry points that share
 * zod's one core (so a plugin's schemas and the SDK's `toJsonSchema` meet one `globalRegistry`).
 * Any other subpath (`zod/v3`, `zod/v4/locales/*`, …) is bundled into the plugin as before.
 */
export const SHARED_MODULES = [
  '@toolhost/plugin-sdk',
  '@toolhost/plugin-sdk/register',
  'zod',
  'zod/mini',
  'zod/v4',
  'zod/v4-mini',
  'zod/v4/mini',
  'zod/v4/core',
] as const;

/** The prelude's entry: the runtime first, then the shared modules of `kind`, then their table. */
function preludeSource(kind: PreludeKind): string {
  const modules = SHARED_MODULES.filter((name) => kind === 'full' || !MINI_MODULES.has(name));
  return [
    `import '@toolhost/plugin-sdk/runtime';`,
    ...modules.map((name, i) => `import * as m${i} from ${JSON.stringify(name)};`),
    `globalThis[${JSON.stringify(SHARED_GLOBAL)}] = Object.freeze({ __proto__: null, ${modules.map((name, i) => `${JSON.stringify(name)}: m${i}`).join(', ')} });`,
    '',
  ].join('\n');
}

/**
 * zod's `locales` namespace (error messages in 60-odd languages) is left out of the prelude: it
 * was 45% of the prelude's source, which every isolate keeps a copy of (631 -> 344 KB, 4.5 -> 3.9
 * MB RSS per isolate with 60 alive). In its place each locale is a function that says how to
 * import it instead: `import de from 'zod/v4/locales/de.js'` bundles that one locale into the
 * plugin (the namespace could not be bound to a bundled copy on use: esbuild would read all 60
 * files for every plugin's build before tree-shaking them away). zod's English messages stay.
 */
const withoutZodLocales: esbuild.Plugin = {
  name: 'toolhost-prelude-without-zod-locales',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/](classic|mini|core)[\\/]/.test(args.importer)
        ? { path: 'zod-locales', namespace: 'toolhost-no-locales' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'toolhost-no-locales' }, async () => {
      const names = Object.keys(await import('zod/v4/locales'));
      const stub = (name: string) => {
        const advice = `zod's locales are not in the toolhost sandbox's shared zod: instead of z.locales.${name}(), import ${name} from 'zod/v4/locales/${name}.js' and call z.config(${name}())`;
        return `export function ${name}() { throw new Error(${JSON.stringify(advice)}); }`;
      };
      return { contents: names.map(stub).join('\n'), loader: 'js' };
    });
  },
};

const preludeScripts = new Map<PreludeKind, Promise<string>>();
/** Prelude builds running in this thread now. */
let preludeBuilds = 0;

/**
 * The prelude of a plugin isolate as one script, built once per process (and kind) from the
 * host's own packages: the in-isolate runtime (`@toolhost/plugin-sdk/runtime`) first, so that it
 * captures the intrinsics before anything else runs, then the shared modules, then their table.
 * It is trusted host code: it is built from the host package, not under a plugin's confinement.
 */
export function loadPreludeScript(kind: PreludeKind): Promise<string> {
  let script = preludeScripts.get(kind);
  if (script === undefined) {
    // esbuild loads here, on the first prelude this process builds: the executor is sent its
    // prelude, and a host that finds its bundles cached may never build one.
    script = import('esbuild')
      .then((esbuild) => {
        preludeBuilds += 1;
        return esbuild
          .build({
            ...ISOLATE_SCRIPT_OPTIONS,
            // Every isolate keeps its own copy of the prelude's source (V8 needs it for lazy
            // compilation): ASCII keeps it a one-byte string, and dropping whitespace and comments
            // shrinks it further (869 KB two-byte -> 631 KB one-byte, 5.5 -> 4.4 MB RSS per isolate).
            // Identifiers keep their names: `keepNames` would cost more than it saves.
            charset: 'ascii',
            minifyWhitespace: true,
            minifySyntax: true,
            absWorkingDir: PACKAGE_ROOT,
            plugins: [withoutZodLocales],
            stdin: {
              contents: preludeSource(kind),
              resolveDir: PACKAGE_ROOT,
              sourcefile: '<toolhost-prelude>',
              loader: 'js',
            },
          })
          .finally(() => {
            preludeBuilds -= 1;
            // This thread's esbuild builds preludes only (plugins build in the build worker): its
            // service (≈ 35 MB RSS after a prelude) goes once none is building, instead of living
            // as long as a `serve` that started its executor; a later prelude starts it again.
            if (preludeBuilds === 0) void esbuild.stop();
          });
      })
      .then((result) => {
        const code = result.outputFiles?.[0]?.text;
        if (code === undefined) {
          throw new Error(`cannot build the sandbox prelude: ${result.errors.map((e) => e.text).join('; ')}`);
        }
        return code;
      });
    preludeScripts.set(kind, script);
  }
  return script;
}

/** The `.js` files under `dir`, recursively, sorted. */
function scriptsUnder(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...scriptsUnder(file));
    else if (entry.isFile() && entry.name.endsWith('.js')) found.push(file);
  }
  return found.sort();
}

/**
 * A fingerprint of what the prelude is built from: the SDK's built files (`sdkDir/dist`) and
 * zod's `package.json`. A cached bundle binds to the prelude's exports and a cached manifest
 * comes from its runtime, and neither is among a bundle's inputs any more: the plugin cache keys
 * on this instead. A folder that cannot be read gives a fingerprint that matches nothing cached.
 */
export function preludeFingerprint(sdkDir: string, zodDir: string): string {
  const hash = createHash('sha256');
  try {
    for (const file of scriptsUnder(path.join(sdkDir, 'dist'))) {
      hash
        .update(`${path.relative(sdkDir, file)}\0`)
        .update(readFileSync(file))
        .update('\0');
    }
    hash.update(readFileSync(path.join(zodDir, 'package.json')));
  } catch {
    hash.update(`unreadable ${Date.now()} ${Math.random()}`);
  }
  return hash.digest('hex').slice(0, 16);
}

/** The folder of package `name` as Node finds it from the host package. */
function hostPackageDir(name: string): string {
  for (let dir = PACKAGE_ROOT; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (existsSync(candidate)) return realpathSync(candidate);
    if (path.dirname(dir) === dir) return candidate;
  }
}

let hostFingerprint: string | undefined;

/** {@link preludeFingerprint} of this host's SDK and zod, computed once. */
export function hostPreludeFingerprint(): string {
  hostFingerprint ??= preludeFingerprint(hostPackageDir('@toolhost/plugin-sdk'), hostPackageDir('zod'));
  return hostFingerprint;
}
