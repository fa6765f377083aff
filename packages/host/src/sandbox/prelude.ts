import ivm from 'isolated-vm';
import { type PreludeKind, preludeKindOf } from './prelude-kind.js';

/** The script every plugin isolate evaluates before its bundle, and V8's code cache of it. */
export interface Prelude {
  readonly code: string;
  readonly filename: string;
  /** Produced here, in this process, from `code` (never read from disk: V8 does not check it against the source). */
  readonly cachedData: ivm.ExternalCopy<ArrayBuffer> | undefined;
}

const FILENAME = 'toolhost:prelude.js';

/** Where a process gets the prelude's source of a kind: built here, or sent by the host. */
export type PreludeSource = (kind: PreludeKind) => Promise<string>;

/**
 * The prelude `bundle` needs (see `preludeKindOf`), built and compiled once per process: each
 * isolate then compiles it from V8's code cache instead of parsing it again, and evaluates it
 * (runtime, SDK, zod).
 *
 * Code cache, not an isolate snapshot (`ivm.Isolate.createSnapshot`). Measured on a 2-core
 * machine with 100 isolates alive, each with a 3-tool plugin described once (medians;
 * `node --no-node-snapshot bench/isolate-prelude.mjs cache|no-cache|snapshot 100 [--mini]`):
 *   - before (the runtime, then a 702 KB bundle carrying its own SDK and zod): create 29-38 ms,
 *     describe 2.3 ms, 6.5 MB RSS per isolate;
 *   - this prelude, no cache: create 31-35 ms, 6.6 MB RSS; with this code cache: create 18 ms,
 *     describe 2.4 ms, 6.1 MB RSS (with zod's mini API, for plugins that use it: 22 ms, 6.9 MB);
 *   - snapshot: create 9-15 ms, 4.7 MB RSS, but unsound in isolated-vm 5.0.4, whose README says
 *     not to use it: in every isolate made from it, closures of the prelude were broken
 *     (`z.object(...).parse` threw "ReferenceError: _ is not defined", zod's `z` export read
 *     undefined), `WebAssembly`, which the runtime deletes, was back, and a value drawn from
 *     Math.random while snapshotting was the same. Host callbacks cannot be in a snapshot
 *     either, so the bridge would have to be installed after.
 */
export function preludeLoader(source: PreludeSource): (bundle: string) => Promise<Prelude> {
  const preludes = new Map<PreludeKind, Promise<Prelude>>();
  return (bundle) => {
    const kind = preludeKindOf(bundle);
    let prelude = preludes.get(kind);
    if (prelude === undefined) {
      prelude = source(kind).then(compileOnce);
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

async function compileOnce(code: string): Promise<Prelude> {
  const isolate = new ivm.Isolate({ memoryLimit: 64 });
  try {
    // isolated-vm's types leave the produced data off `Script`; it is there (README: CachedDataResult).
    const script = (await isolate.compileScript(code, {
      filename: FILENAME,
      produceCachedData: true,
    })) as ivm.Script & ivm.CachedDataResult;
    return { code, filename: FILENAME, cachedData: script.cachedData };
  } catch {
    // Without a cache every isolate parses the prelude itself: slower, still correct.
    return { code, filename: FILENAME, cachedData: undefined };
  } finally {
    isolate.dispose();
  }
}
