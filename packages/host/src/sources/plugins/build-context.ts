import * as path from 'node:path';
import * as esbuild from 'esbuild';
import { ISOLATE_SCRIPT_OPTIONS } from '../../sandbox/isolate-script.js';
import { diskReader } from './build-files.js';
import { BuildBudget, type BuildLimits } from './build-limits.js';
import { type BuildRun, buildScope, confinementPlugin, RESOLVE_EXTENSIONS } from './confine.js';
import { nodeBuiltinsPlugin } from './node-builtins.js';
import { ENTRY_SOURCEFILE, SHARED_NAMESPACE, SHARED_TABLE, sharedModulesPlugin } from './shared-modules.js';

/** A bundle ready for an isolate, or why there is none. */
export type BundleOutcome =
  | {
      readonly ok: true;
      readonly code: string;
      /** Absolute paths of every file it was built from. */
      readonly inputs: readonly string[];
    }
  | { readonly ok: false; readonly error: string; readonly inputs: readonly string[] };

function formatMessages(messages: readonly esbuild.Message[], cwd: string): string {
  const lines = messages.map((m) => {
    const where = m.location
      ? `${path.relative(cwd, path.resolve(cwd, m.location.file))}:${m.location.line}:${m.location.column}: `
      : '';
    let text = m.text;
    if (/No matching export .* for import "default"/.test(text)) {
      text = 'the plugin entry has no default export: write `export default definePlugin({ ... })`';
    }
    return `${where}${text}`;
  });
  // One import refused in several ways, or reached from several files, is said once.
  return [...new Set(lines)].slice(0, 5).join('\n');
}

function inputsOf(metafile: esbuild.Metafile | undefined, cwd: string): string[] {
  if (metafile === undefined) return [];
  return (
    Object.keys(metafile.inputs)
      // Files only: not the generated entry, nor the modules the isolate's prelude supplies.
      .filter((file) => !file.startsWith('<') && !file.startsWith(`${SHARED_NAMESPACE}:`))
      .map((file) => path.resolve(cwd, file))
  );
}

function outcomeOf(result: esbuild.BuildResult, cwd: string): BundleOutcome {
  const code = result.outputFiles?.[0]?.text;
  if (result.errors.length > 0 || code === undefined) {
    return { ok: false, error: formatMessages(result.errors, cwd), inputs: inputsOf(result.metafile, cwd) };
  }
  return { ok: true, code, inputs: inputsOf(result.metafile, cwd) };
}

/** A failed build (esbuild rejects when there are errors), or a fault. */
function failureOf(error: unknown, cwd: string): BundleOutcome {
  const messages = (error as { errors?: esbuild.Message[] }).errors;
  return {
    ok: false,
    error: messages ? formatMessages(messages, cwd) : String((error as Error)?.message ?? error),
    inputs: [],
  };
}

/**
 * Options for one plugin's bundle build: the prelude's module table, the SDK's register import
 * (both supplied by the isolate's prelude, see shared-modules.ts), then the plugin entry.
 */
function pluginBuildOptions(entry: string, root: string, plugins: esbuild.Plugin[]): esbuild.BuildOptions {
  return {
    // Every plugin build is a script for an isolate.
    ...ISOLATE_SCRIPT_OPTIONS,
    absWorkingDir: root,
    // esbuild otherwise reads tsconfig.json files from the plugin folder and every folder above it
    // (and whatever they extend): their paths and settings would reach outside the plugin.
    tsconfigRaw: {},
    resolveExtensions: RESOLVE_EXTENSIONS,
    plugins,
    stdin: {
      // The table comes first: it is taken from the global before any plugin module runs.
      contents: `import ${JSON.stringify(SHARED_TABLE)};\nimport { registerPlugin } from '@toolhost/plugin-sdk/register';\nimport plugin from ${JSON.stringify(entry)};\nregisterPlugin(plugin);\n`,
      resolveDir: root,
      sourcefile: ENTRY_SOURCEFILE,
      loader: 'js',
    },
  };
}

interface ConfinedContext {
  readonly context: esbuild.BuildContext;
  /** What its confinement plugin counts against; a new budget for every build. */
  readonly run: BuildRun;
}

/**
 * One plugin's esbuild context, confined to the plugin's folder (plus the host's SDK and zod) and
 * counted against its file and byte limits. It runs in the build worker, whose supervisor enforces
 * the time limit (see build-service.ts): a one-shot build is a context built once and disposed.
 */
export class PluginBuild {
  readonly #entry: string;
  readonly #root: string;
  readonly #limits: BuildLimits;
  #current: Promise<ConfinedContext> | undefined;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(entry: string, root: string, limits: BuildLimits) {
    this.#entry = entry;
    this.#root = root;
    this.#limits = limits;
  }

  async #create(): Promise<ConfinedContext> {
    const scope = await buildScope(this.#root);
    const run: BuildRun = { budget: new BuildBudget(this.#limits) };
    const plugins = [nodeBuiltinsPlugin, sharedModulesPlugin, confinementPlugin(scope, run, diskReader)];
    return { context: await esbuild.context(pluginBuildOptions(this.#entry, this.#root, plugins)), run };
  }

  /** Builds once; builds of one plugin run one after the other. Never throws. */
  rebuild(): Promise<BundleOutcome> {
    const outcome = this.#queue.then(() => this.#build());
    this.#queue = outcome.catch(() => undefined);
    return outcome;
  }

  async #build(): Promise<BundleOutcome> {
    this.#current ??= this.#create();
    let current: ConfinedContext;
    try {
      current = await this.#current;
    } catch (error) {
      this.#current = undefined;
      return failureOf(error, this.#root);
    }
    const budget = new BuildBudget(this.#limits);
    current.run.budget = budget;
    let outcome: BundleOutcome;
    try {
      outcome = outcomeOf(await current.context.rebuild(), this.#root);
    } catch (error) {
      outcome = failureOf(error, this.#root);
    }
    // A build stopped by a limit fails with that limit, said once (every later file repeats it).
    return budget.reason === undefined ? outcome : { ok: false, error: budget.reason, inputs: [] };
  }

  async dispose(): Promise<void> {
    const current = this.#current;
    this.#current = undefined;
    try {
      await (await current)?.context.dispose();
    } catch {
      // A context that failed to start has nothing to dispose.
    }
  }
}
