import ivm from 'isolated-vm';
import { messageOf } from '../util/errors.js';
import { type PreludeKind, preludeKindOf } from './prelude-kind.js';
import { PRELUDE_WARMUP } from './prelude-warmup.js';
import type { PreludeStart } from './types.js';

/**
 * What every plugin isolate starts with, before its bundle: the prelude as a V8 snapshot of a
 * context that has evaluated it, or (the fallback) its source with V8's code cache of it. Both
 * are produced here, in this process, from `code`, and never read from disk: V8 verifies neither
 * against the source (CVE-2022-39266), and a snapshot holds machine code.
 */
export interface Prelude {
  readonly code: string;
  readonly filename: string;
  /** Isolates are made from it and never evaluate `code`; undefined when V8 could not make it. */
  readonly snapshot: ivm.ExternalCopy<ArrayBuffer> | undefined;
  /** For isolates that evaluate `code` (no snapshot); undefined when there is a snapshot. */
  readonly cachedData: ivm.ExternalCopy<ArrayBuffer> | undefined;
  /** Whether the snapshot carries the warm-up's compiled functions (prelude-warmup.ts). */
  readonly warmed: boolean;
}

const FILENAME = 'toolhost:prelude.js';

/** Where a process gets the prelude's source of a kind: built here, or sent by the host. */
export type PreludeSource = (kind: PreludeKind) => Promise<string>;

const starts: Partial<Record<PreludeKind, PreludeStart>> = {};

/**
 * The prelude `bundle` needs (see `preludeKindOf`), built and snapshotted once per process: each
 * isolate is then made from the snapshot, with the runtime, the SDK and zod already evaluated in
 * it; the host attaches the bridge to each new context (plugin-isolate.ts).
 *
 * Measured on a 2-core machine (busy: load 5-9), Node 24.21, isolated-vm 7.0.1, 100 isolates
 * alive, each with a 3-tool plugin described once (medians of 3 runs; `node --no-node-snapshot
 * bench/isolate-prelude.mjs snapshot|cache|no-cache 100 [--mini]`):
 *   - before (Node 20, 5.0.4; the runtime, then a 702 KB bundle carrying its own SDK and zod):
 *     create 29-38 ms, describe 2.3 ms, 6.5 MB RSS per isolate;
 *   - each isolate evaluating the prelude from this process's code cache (the fallback): create
 *     16.5-18.3 ms, describe 2.5-2.7 ms, 5.45-5.58 MB RSS (zod's mini API too: 17.5-19 ms,
 *     6.1 MB); without the cache: create 29-40 ms;
 *   - made from the snapshot: create 11.2-12.1 ms, describe 2.5-2.9 ms, 4.47-4.51 MB RSS (mini:
 *     13-14 ms, 5.4 MB). bench/scale.mjs, 100 plugins called once in the process sandbox:
 *     executor 549-550 MB against 632-633 MB (4.8 against 5.6 MB per isolate), cold start 3.6-3.7 s
 *     against 3.7-4.3 s. Since the snapshot is taken with a warm-up (prelude-warmup.ts, where
 *     the figures are), describe and a first call take half the time or less.
 * What it costs: making the snapshot holds this thread 47-102 ms once per kind (90-250 ms with
 * mini; with the warm-up, 60-61 ms where it took 42-48 without; the code cache, 20-120 ms, is
 * made off it), and `new ivm.Isolate` holds it 3.3-3.9 ms
 * instead of 0.9-1.1 ms (isolated-vm deserializes a default context of its own there, which it
 * never lends: that copy of the prelude is ≈ 1 MB of every isolate, which holds 1.96 MB before any
 * context of ours against a plain isolate's 1.00 MB). Code-mode scripts' isolates take no
 * snapshot: their runtime (script-runtime.ts) evaluates in ≈ 0.3 ms of a ≈ 2.6 ms start, and one
 * made from a snapshot started no sooner and took the same RSS.
 *
 * On isolated-vm 5.0.4 a snapshot was unsound (zod's closures broke, deleted globals came back).
 * On 7.0.1 zod works, and each isolate draws its own Math.random (V8 reseeds every context it
 * deserializes; only a value stored while snapshotting would repeat). V8 still installs
 * `WebAssembly`, `SharedArrayBuffer`, `Error.stackTraceLimit` and its newest builtins only when
 * it makes a context, never while it snapshots: the attach step deletes `WebAssembly` again, and
 * the runtime's header says what its top level must not do. prelude-snapshot.test.ts pins both.
 */
export function preludeLoader(source: PreludeSource): (bundle: string) => Promise<Prelude> {
  const preludes = new Map<PreludeKind, Promise<Prelude>>();
  return (bundle) => {
    const kind = preludeKindOf(bundle);
    let prelude = preludes.get(kind);
    if (prelude === undefined) {
      prelude = source(kind)
        .then((code) => preparePrelude(code))
        .then((made) => {
          starts[kind] =
            made.snapshot === undefined ? 'code-cache' : made.warmed ? 'snapshot' : 'snapshot-unwarmed';
          return made;
        });
      preludes.set(kind, prelude);
    }
    return prelude;
  };
}

/**
 * The prelude built in this process (the host, and `sandbox: 'inline'`): with esbuild, loaded only
 * when first needed, so the executor process, which is sent its prelude, never loads a bundler.
 */
export const loadPrelude = preludeLoader((kind) =>
  import('./isolate-script.js').then((script) => script.loadPreludeScript(kind)),
);
/** How the isolates of each prelude made in this process so far start. */
export function preludeStarts(): Partial<Record<PreludeKind, PreludeStart>> {
  return { ...starts };
}

let saidFallback = false;
let saidCold = false;

/** An error's name (when it is not a plain Error) and message, for a warning line. */
function described(error: unknown): string {
  const name = error instanceof Error && error.name !== 'Error' ? `${error.name}: ` : '';
  return `${name}${messageOf(error)}`;
}

/**
 * `warmup`, throwing only objects: isolated-vm 7.0.1 asserts that what a warm-up throws is an
 * object, and aborts the whole process when it is not (`throw 1`).
 */
function guarded(warmup: string): string {
  return `try {\n${warmup}\n} catch (error) {\n  throw (typeof error === 'object' && error !== null) || typeof error === 'function' ? error : new Error('the warm-up threw ' + String(error));\n}\n`;
}

/**
 * The prelude of `code`: its snapshot, warmed by `warmup` (prelude-warmup.ts); or, when the
 * warm-up fails, a snapshot without it; or, when V8 fails to make one at all (an engine error),
 * its code cache. Each step down is said once per process through `warn` (stderr: the host's, or
 * the executor's, which it inherits): isolates still work, they only start slower. `warmup` null
 * asks for a snapshot without warm-up, said to nobody (the benchmark's baseline). Holds this
 * thread while V8 snapshots (see above), once per prelude kind.
 */
export async function preparePrelude(
  code: string,
  warn: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
  warmup: string | null = PRELUDE_WARMUP,
): Promise<Prelude> {
  const scripts = [{ code, filename: FILENAME }];
  let warmupError: unknown;
  if (warmup !== null) {
    try {
      const snapshot = ivm.Isolate.createSnapshot(scripts, guarded(warmup));
      return { code, filename: FILENAME, snapshot, cachedData: undefined, warmed: true };
    } catch (error) {
      warmupError = error;
    }
  }
  let snapshot: ivm.ExternalCopy<ArrayBuffer>;
  try {
    snapshot = ivm.Isolate.createSnapshot(scripts);
  } catch (error) {
    if (!saidFallback) {
      saidFallback = true;
      warn(
        `toolhost: cannot snapshot the sandbox prelude (${described(error)}); plugin isolates evaluate it from V8's code cache instead`,
      );
    }
    return codeCachePrelude(code);
  }
  if (warmup !== null && !saidCold) {
    saidCold = true;
    warn(
      `toolhost: the sandbox prelude's warm-up failed (${described(warmupError)}); plugin isolates start from a snapshot without it, and compile what they run themselves`,
    );
  }
  return { code, filename: FILENAME, snapshot, cachedData: undefined, warmed: false };
}

/** The prelude every isolate evaluates, compiled from V8's code cache of `code` (the fallback, and the benchmark's baseline). */
export async function codeCachePrelude(code: string): Promise<Prelude> {
  const isolate = new ivm.Isolate({ memoryLimit: 64 });
  try {
    // isolated-vm's types leave the produced data off `Script`; it is there (README: CachedDataResult).
    const script = (await isolate.compileScript(code, {
      filename: FILENAME,
      produceCachedData: true,
    })) as ivm.Script & ivm.CachedDataResult;
    return { code, filename: FILENAME, snapshot: undefined, cachedData: script.cachedData, warmed: false };
  } catch {
    // Without a cache every isolate parses the prelude itself: slower, still correct.
    return { code, filename: FILENAME, snapshot: undefined, cachedData: undefined, warmed: false };
  } finally {
    isolate.dispose();
  }
}
