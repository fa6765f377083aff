/** What grep's search takes and gives (grep-search.ts), and its messages to and from its matching worker thread. */

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

/** One file to search: its workspace-relative path and its bytes. */
export interface SearchFile {
  readonly rel: string;
  readonly data: Uint8Array;
}

/** A matching line and the file it is in. */
export interface FileHit extends LineHit {
  readonly rel: string;
}

export interface SearchRequest {
  readonly pattern: string;
  readonly ignoreCase: boolean;
  readonly maxResults: number;
  /** Wall-clock budget of the whole search, ms. */
  readonly budgetMs: number;
  /** Longest one file may take to match, ms, before it is retried with the linear-time engine or skipped. */
  readonly fileBudgetMs: number;
  /** Largest file that will be sent, bytes (sizes the worker's heap). */
  readonly maxFileBytes: number;
  readonly signal: AbortSignal;
  /** The engine to start with. Default `native`; `linear` is for tests and benchmarks. */
  readonly engine?: Engine;
}

export interface SearchOutcome {
  /** In file order, then line order. */
  readonly hits: readonly FileHit[];
  /** More lines matched than `maxResults`; the search stopped there. */
  readonly capped: boolean;
  /** The time budget ran out before every file was searched. */
  readonly outOfTime: boolean;
  /** Files whose every line was tested. */
  readonly searchedFiles: number;
  /** Files skipped because no engine matched them within `fileBudgetMs`. */
  readonly tooSlow: readonly string[];
  /** The file from which on the linear-time engine matched, if the search switched to it. */
  readonly linearFrom: string | undefined;
  /** Why the linear-time engine could not take over, if it could not. */
  readonly linearRefused: string | undefined;
}
