import { builtinModules } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

/** The host package folder: plugin bundles resolve the SDK and zod from here, not from the plugin. */
const hostDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** What to use instead of a Node built-in inside the sandbox. */
const capabilityFor: Record<string, string> = {
  fs: 'use ctx.fs (declare permissions.fs; config grants it at plugins.<id>.grants.fs)',
  'fs/promises': 'use ctx.fs (declare permissions.fs; config grants it at plugins.<id>.grants.fs)',
  http: 'use ctx.fetch (declare permissions.net; config grants it at plugins.<id>.grants.net)',
  https: 'use ctx.fetch (declare permissions.net; config grants it at plugins.<id>.grants.net)',
  net: 'use ctx.fetch (declare permissions.net; config grants it at plugins.<id>.grants.net)',
  process: 'use ctx.env.get (declare permissions.env; config grants it at plugins.<id>.grants.env)',
  os: 'use ctx.env.get for configuration (declare permissions.env)',
  timers: 'use ctx.sleep',
  'timers/promises': 'use ctx.sleep',
  child_process: 'plugins cannot start processes',
  worker_threads: 'plugins cannot start threads',
};

const builtins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));

/** Refuses Node built-ins with a message naming the capability to use instead. */
const nodeBuiltinsPlugin: esbuild.Plugin = {
  name: 'toolhost-no-node-builtins',
  setup(build) {
    build.onResolve({ filter: /^[a-z_:/]+$/ }, (args) => {
      if (!builtins.has(args.path)) return undefined;
      const bare = args.path.replace(/^node:/, '');
      const instead = capabilityFor[bare] ?? 'the sandbox has no Node APIs';
      return { errors: [{ text: `Node built-in "${args.path}" is not available to plugins: ${instead}` }] };
    });
  },
};

/** Resolves the SDK and zod from the host, so every plugin runs against the host's own copies. */
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

const sharedOptions: esbuild.BuildOptions = {
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
  plugins: [nodeBuiltinsPlugin, hostPackagesPlugin],
};

/** A bundle ready for an isolate, or why there is none. */
export type BundleOutcome =
  | {
      readonly ok: true;
      readonly code: string /** Absolute paths of every file it was built from. */;
      readonly inputs: readonly string[];
    }
  | { readonly ok: false; readonly error: string; readonly inputs: readonly string[] };

function formatMessages(messages: readonly esbuild.Message[], cwd: string): string {
  return messages
    .slice(0, 5)
    .map((m) => {
      const where = m.location
        ? `${path.relative(cwd, path.resolve(cwd, m.location.file))}:${m.location.line}:${m.location.column}: `
        : '';
      let text = m.text;
      if (/No matching export .* for import "default"/.test(text)) {
        text = 'the plugin entry has no default export: write `export default definePlugin({ ... })`';
      }
      return `${where}${text}`;
    })
    .join('\n');
}

function inputsOf(metafile: esbuild.Metafile | undefined, cwd: string): string[] {
  if (metafile === undefined) return [];
  return Object.keys(metafile.inputs)
    .filter((file) => !file.startsWith('<'))
    .map((file) => path.resolve(cwd, file));
}

/** Options for one plugin's bundle build. */
function pluginBuildOptions(entry: string): esbuild.BuildOptions {
  const dir = path.dirname(entry);
  return {
    ...sharedOptions,
    absWorkingDir: dir,
    stdin: {
      // The register import comes first so the SDK is evaluated before any plugin module.
      contents: `import { registerPlugin } from '@toolhost/plugin-sdk/register';\nimport plugin from ${JSON.stringify(entry)};\nregisterPlugin(plugin);\n`,
      resolveDir: dir,
      sourcefile: '<toolhost-entry>',
      loader: 'js',
    },
  };
}

function outcomeOf(result: esbuild.BuildResult, cwd: string): BundleOutcome {
  const code = result.outputFiles?.[0]?.text;
  if (result.errors.length > 0 || code === undefined) {
    return { ok: false, error: formatMessages(result.errors, cwd), inputs: inputsOf(result.metafile, cwd) };
  }
  return { ok: true, code, inputs: inputsOf(result.metafile, cwd) };
}

function failureOf(error: unknown, cwd: string): BundleOutcome {
  const messages = (error as { errors?: esbuild.Message[] }).errors;
  return {
    ok: false,
    error: messages ? formatMessages(messages, cwd) : String((error as Error)?.message ?? error),
    inputs: [],
  };
}

/** Bundles a plugin entry into one script for the isolate. Never throws. */
export async function bundlePlugin(entry: string): Promise<BundleOutcome> {
  const cwd = path.dirname(entry);
  try {
    return outcomeOf(await esbuild.build(pluginBuildOptions(entry)), cwd);
  } catch (error) {
    return failureOf(error, cwd);
  }
}

/** An incremental bundler for one plugin: rebuilds reuse esbuild's cache (watch mode). */
export interface IncrementalBundler {
  rebuild(): Promise<BundleOutcome>;
  dispose(): Promise<void>;
}

export async function createIncrementalBundler(entry: string): Promise<IncrementalBundler> {
  const cwd = path.dirname(entry);
  const context = await esbuild.context(pluginBuildOptions(entry));
  return {
    async rebuild() {
      try {
        return outcomeOf(await context.rebuild(), cwd);
      } catch (error) {
        return failureOf(error, cwd);
      }
    },
    dispose: () => context.dispose(),
  };
}

let runtimeScript: Promise<string> | undefined;

/** The in-isolate runtime as one script, built once per process from the host's SDK. */
export function loadRuntimeScript(): Promise<string> {
  runtimeScript ??= esbuild
    .build({
      ...sharedOptions,
      absWorkingDir: hostDir,
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
