/** Messages between grep's search (host main thread) and its matching worker thread. */

/**
 * `native`: JavaScript's RegExp (fast, full syntax, can backtrack exponentially).
 * `linear`: RE2 semantics through re2js (time linear in the input, no backreferences or lookaround).
 */
export type Engine = 'native' | 'linear';

/** What the progress slot holds while the thread is not matching a file. */
export const IDLE = -1;

/** The worker's `workerData`. */
export interface MatchThreadData {
  /** Shared slot 0: the id of the file being matched, or IDLE. Only the worker writes it. */
  readonly progress: Int32Array;
}

/** One matching line of a file. */
export interface LineHit {
  /** 1-based line number. */
  readonly line: number;
  /** The line, cut to a few hundred characters. */
  readonly text: string;
}

/** A file to match; `id` is unique within a search and increasing. */
export interface FileToMatch {
  readonly id: number;
  readonly data: Uint8Array;
}

export interface FileMatched {
  readonly id: number;
  readonly hits: readonly LineHit[];
}

/** Host → worker. Messages are handled strictly in order. */
export type ToWorker =
  | {
      readonly kind: 'compile';
      readonly engine: Engine;
      readonly pattern: string;
      readonly ignoreCase: boolean;
      /** Most hits reported per file. */
      readonly limit: number;
    }
  /** A batch: each message wakes a sleeping thread, which costs more than the message itself. */
  | { readonly kind: 'match'; readonly files: readonly FileToMatch[] };

/** Worker → host: one reply per message, in order. */
export type FromWorker =
  | { readonly kind: 'compiled' }
  | {
      readonly kind: 'rejected';
      /** `invalid`: not a JavaScript pattern. `unsupported`: valid, but this engine cannot run it. */
      readonly reason: 'invalid' | 'unsupported';
      readonly message: string;
    }
  /** The batch's files, in order. */
  | { readonly kind: 'matched'; readonly files: readonly FileMatched[] }
  /** Matching file `id` threw; the files of the batch before it are in `matched`, the rest were not tried. */
  | {
      readonly kind: 'failed';
      readonly id: number;
      readonly message: string;
      readonly matched: readonly FileMatched[];
    };
