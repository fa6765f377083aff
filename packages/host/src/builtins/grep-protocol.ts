/** Messages between grep's search (host main thread) and its matching worker thread. */

/**
 * `native`: JavaScript's RegExp (fast, full syntax, can backtrack exponentially).
 * `linear`: RE2 semantics through re2js (time linear in the input, no backreferences or lookaround).
 */
export type Engine = 'native' | 'linear';

/** One matching line of a file. */
export interface LineHit {
  /** 1-based line number. */
  readonly line: number;
  /** The line, cut to a few hundred characters. */
  readonly text: string;
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
  | { readonly kind: 'match'; readonly id: number; readonly data: Uint8Array };

/** Worker → host: one reply per message, in order. */
export type FromWorker =
  | { readonly kind: 'compiled' }
  | {
      readonly kind: 'rejected';
      /** `invalid`: not a JavaScript pattern. `unsupported`: valid, but this engine cannot run it. */
      readonly reason: 'invalid' | 'unsupported';
      readonly message: string;
    }
  | { readonly kind: 'matched'; readonly id: number; readonly hits: readonly LineHit[] }
  | { readonly kind: 'failed'; readonly id: number; readonly message: string };
