import { realpathSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import * as path from 'node:path';
import type * as esbuild from 'esbuild';
import { PACKAGE_ROOT } from '../../util/package.js';
import { isInside } from '../../util/paths.js';
import type { BuildFileRead, BuildFileReader } from './build-files.js';
import type { BuildBudget } from './build-limits.js';

/**
 * The rules of what a plugin build may read. Bump it whenever they change: the bundle cache keys
 * on it, so a bundle built under older (looser) rules is never reused.
 */
export const BUILD_RULES_VERSION = 'confined-2-shared-prelude';

/**
 * The packages a plugin imports from the host, by specifier; their subpaths too. Plugin bundles
 * resolve them from the host package folder (`PACKAGE_ROOT`), never from the plugin.
 */
const HOST_PACKAGES = ['@toolhost/plugin-sdk', 'zod'] as const;
const HOST_SPECIFIER = /^(@toolhost\/plugin-sdk|zod)(\/.*)?$/;

/** The only loaders a build uses, by extension: code and JSON, nothing that inlines raw bytes. */
const LOADERS: ReadonlyMap<string, esbuild.Loader> = new Map([
  ['.ts', 'ts'],
  ['.mts', 'ts'],
  ['.cts', 'ts'],
  ['.tsx', 'tsx'],
  ['.js', 'js'],
  ['.mjs', 'js'],
  ['.cjs', 'js'],
  ['.jsx', 'jsx'],
  ['.json', 'json'],
]);

/**
 * Whether a build could ever read `file`: one without a loader (an editor's temp or backup file,
 * notes, images) cannot change a bundle, so the watcher need not rebuild for it.
 */
export function buildMayRead(file: string): boolean {
  return LOADERS.has(path.extname(file).toLowerCase());
}

/** esbuild's default resolve extensions, without `.css`. */
export const RESOLVE_EXTENSIONS = ['.tsx', '.ts', '.jsx', '.js', '.json'];

const WHY = {
  outside:
    "it is outside the plugin folder (a plugin build reads only the plugin's own files, @toolhost/plugin-sdk and zod)",
  hostPackage: 'it leaves the host package (a package path may not contain "." or ".." segments)',
  hostOutside: "it is outside the host's @toolhost/plugin-sdk and zod packages",
  loader: `only ${[...LOADERS.keys()].join(', ')} files can be imported (text, file, binary, dataurl, css and other loaders are not available to plugins)`,
  attribute:
    'import attributes may not change how a file is loaded (the only one allowed is { type: "json" } on a .json file)',
  notAFile: 'it is not a file (data: URLs and other virtual modules cannot be imported)',
  notRegular: 'it is not a regular file',
  external: 'it would stay an import at run time, and the sandbox has no module loader',
} as const;

/** The folders a build may read, as real paths. */
export interface BuildScope {
  /** The plugin's folder. */
  readonly pluginRoot: string;
  /** The host's `@toolhost/plugin-sdk` and `zod` package folders. */
  readonly hostRoots: readonly string[];
}

function realpathOr(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}

/** A package folder as Node (and esbuild) would find it from `from`: the nearest node_modules. */
async function packageDir(from: string, name: string): Promise<string | undefined> {
  for (let dir = from; ; dir = path.dirname(dir)) {
    try {
      return await realpath(path.join(dir, 'node_modules', name));
    } catch {
      if (path.dirname(dir) === dir) return undefined;
    }
  }
}

let hostRoots: Promise<readonly string[]> | undefined;

/** The folders of a plugin build: the plugin's own, and the host's SDK and zod. */
export async function buildScope(pluginDir: string): Promise<BuildScope> {
  hostRoots ??= Promise.all(HOST_PACKAGES.map((name) => packageDir(PACKAGE_ROOT, name))).then((dirs) =>
    dirs.filter((dir) => dir !== undefined),
  );
  return { pluginRoot: realpathOr(pluginDir), hostRoots: await hostRoots };
}

/** Whether a build under `scope` may read `file` (a real path). */
export function inScope(scope: BuildScope, file: string): boolean {
  return isInside(scope.pluginRoot, file) || scope.hostRoots.some((root) => isInside(root, file));
}

/** The loader of a file, if builds may load it at all. */
function loaderOf(file: string): esbuild.Loader | undefined {
  return LOADERS.get(path.extname(file).toLowerCase());
}

/** Why these import attributes are refused for a file with this loader, if they are. */
function attributeProblem(
  attributes: Readonly<Record<string, string>>,
  loader: esbuild.Loader,
): string | undefined {
  const keys = Object.keys(attributes);
  if (keys.length === 0) return undefined;
  if (keys.length === 1 && attributes.type === 'json' && loader === 'json') return undefined;
  return WHY.attribute;
}

/** An import as the person wrote it: `import "x"`, `require("x")`, `import("x")`, with its attributes. */
function describeImport(args: esbuild.OnResolveArgs): string {
  const specifier = JSON.stringify(args.path);
  const attributes = Object.entries(args.with);
  const suffix =
    attributes.length === 0
      ? ''
      : ` with { ${attributes.map(([key, value]) => `${key}: ${JSON.stringify(value)}`).join(', ')} }`;
  switch (args.kind) {
    case 'require-call':
      return `require(${specifier})${suffix}`;
    case 'require-resolve':
      return `require.resolve(${specifier})${suffix}`;
    case 'dynamic-import':
      return `import(${specifier})${suffix}`;
    default:
      return `import ${specifier}${suffix}`;
  }
}

const refusal = (text: string) => ({ errors: [{ text }] });

/** What one build of a context has seen; replaced for each build. */
export interface BuildRun {
  budget: BuildBudget;
}

/** Marks the resolutions this plugin asks esbuild for, so it does not intercept them again. */
const RESOLVING = 'toolhost-confine:resolving';

/**
 * Confines a plugin build to its scope. Every import of plugin code is resolved here (esbuild's own
 * resolver does the work, then the result is checked against the scope, the loader allow list and
 * the import attributes), and every plugin file is read here (never by esbuild), which is where
 * reads are counted. A plugin file that reaches `onLoad` without passing `onResolve` was matched by
 * a glob: esbuild expands `import(\`./x/${name}\`)` and `require('./x/' + name)` by listing
 * folders, without resolving. The SDK's and zod's own imports among their files are the host's
 * code: esbuild resolves and reads those itself (and caches them across rebuilds), still only
 * inside their folders and with the same loaders.
 */
export function confinementPlugin(scope: BuildScope, run: BuildRun, reader: BuildFileReader): esbuild.Plugin {
  /** Plugin files that passed `onResolve` in the current build. */
  const resolved = new Set<string>();
  const shown = (file: string) => path.relative(scope.pluginRoot, file).split(path.sep).join('/');
  const inHost = (file: string) =>
    !isInside(scope.pluginRoot, file) && scope.hostRoots.some((root) => isInside(root, file));

  return {
    name: 'toolhost-confine',
    setup(build) {
      build.onStart(() => {
        resolved.clear();
      });

      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData === RESOLVING) return undefined;
        if (run.budget.reason !== undefined) return refusal(run.budget.reason);
        const hostPackage = HOST_SPECIFIER.test(args.path);
        if (!hostPackage && path.isAbsolute(args.importer) && inHost(args.importer)) return undefined;
        const refuse = (why: string) => refusal(`${describeImport(args)} is refused: ${why}`);
        if (hostPackage && args.path.split('/').some((part) => part === '.' || part === '..'))
          return refuse(WHY.hostPackage);
        const result = await build.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          namespace: 'file',
          resolveDir: hostPackage ? PACKAGE_ROOT : args.resolveDir,
          pluginData: RESOLVING,
          with: args.with,
        });
        if (result.errors.length > 0) return { errors: result.errors, warnings: result.warnings };
        if (result.external) return refuse(WHY.external);
        if (result.namespace !== 'file') return refuse(WHY.notAFile);
        const file = realpathOr(result.path);
        // Plugin code (and the entry stub, importer "<stdin>") reaches only the plugin folder; the
        // SDK and zod are reached only through their package names, and stay in their folders.
        if (hostPackage) {
          if (!inHost(file)) return refuse(WHY.hostOutside);
        } else if (!isInside(scope.pluginRoot, file)) return refuse(WHY.outside);
        const loader = loaderOf(file);
        if (loader === undefined) return refuse(WHY.loader);
        const attributes = attributeProblem(args.with, loader);
        if (attributes !== undefined) return refuse(attributes);
        if (!hostPackage) resolved.add(file);
        return {
          path: file,
          namespace: 'file',
          ...(result.sideEffects ? {} : { sideEffects: false }),
          ...(result.suffix === '' ? {} : { suffix: result.suffix }),
        };
      });

      build.onLoad({ filter: /.*/ }, async (args) => {
        const budget = run.budget;
        // Every load counts, refused ones too: a glob over a large folder stops at the limit.
        const overFiles = budget.takeFile();
        if (overFiles !== undefined) return refusal(overFiles);
        if (args.namespace !== 'file') return refusal(`"${args.path}" is refused: ${WHY.notAFile}`);
        const file = realpathOr(args.path);
        const loader = loaderOf(file);
        const matched = 'matched by an import() or require() of a computed path';
        const refuse = (why: string) =>
          refusal(
            resolved.has(file)
              ? `"${shown(file)}" is refused: ${why}`
              : `"${shown(file)}" (${matched}) is refused: ${why}`,
          );
        const host = inHost(file);
        // Not named: the names of host files are the host's business.
        if (!host && !isInside(scope.pluginRoot, file))
          return refusal(`a file ${matched} is refused: ${WHY.outside}`);
        if (loader === undefined) return refuse(WHY.loader);
        const attributes = attributeProblem(args.with, loader);
        if (attributes !== undefined) return refuse(attributes);
        if (host) return undefined;
        let read: BuildFileRead;
        try {
          read = await reader.read(file, budget.remainingBytes);
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code ?? String(error);
          return refusal(`"${shown(file)}" cannot be read: ${code}`);
        }
        if (read.kind === 'not-a-file') return refuse(WHY.notRegular);
        if (read.kind === 'too-large') return refusal(budget.overBytes());
        const overBytes = budget.takeBytes(read.bytes.length);
        if (overBytes !== undefined) return refusal(overBytes);
        return { contents: read.bytes, loader };
      });
    },
  };
}
