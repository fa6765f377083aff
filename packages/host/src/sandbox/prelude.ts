import ivm from 'isolated-vm';
import { loadPreludeScript } from './isolate-script.js';

/** The script every plugin isolate evaluates before its bundle, and V8's code cache of it. */
export interface Prelude {
  readonly code: string;
  readonly filename: string;
  /** Produced here, in this process, from `code` (never read from disk: V8 does not check it against the source). */
  readonly cachedData: ivm.ExternalCopy<ArrayBuffer> | undefined;
}

const FILENAME = 'toolhost:prelude.js';

let prelude: Promise<Prelude> | undefined;

/**
 * The prelude, built and compiled once per process: each isolate then compiles it from V8's code
 * cache instead of parsing it again, and evaluates it (runtime, SDK, zod).
 *
 * Code cache, not an isolate snapshot (`ivm.Isolate.createSnapshot`). Measured on a 2-core
 * machine, 100 isolates alive, each with a 3-tool plugin described once (medians; /tmp script,
 * see the branch's report):
 *   - per-plugin bundles as before (runtime, then the bundle with its own SDK and zod):
 *     create 38 ms, describe 3.1 ms, 3.2 MB used heap, 6.5 MB RSS per isolate;
 *   - shared prelude, no cache: create 42 ms; with this code cache: create 23 ms, describe 2.5 ms,
 *     3.8 MB used heap, 7.4 MB RSS;
 *   - snapshot: create 12 ms, 5.0 MB used heap, 5.7 MB RSS — but unsound in isolated-vm 5.0.4
 *     (whose README says not to use it): after deserialization closures of the prelude were
 *     broken (`z.object(...).parse` threw "ReferenceError: _ is not defined", zod's `z` export
 *     read undefined), `WebAssembly`, which the runtime deletes, was back in every context, and a
 *     value drawn from Math.random while snapshotting was the same in every isolate. Host
 *     callbacks cannot be in a snapshot either, so the bridge would have to be installed after.
 */
export function loadPrelude(): Promise<Prelude> {
  prelude ??= loadPreludeScript().then(async (code) => {
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
  });
  return prelude;
}
