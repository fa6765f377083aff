/** The tokenizer the numbers are in, for the bench's output. */
export declare const TOKENIZER: string;
/** Tokens of `text` (o200k_base). */
export declare function tokens(text: string): number;
/** Tokens of `value` as JSON. */
export declare function jsonTokens(value: unknown): number;
/** Tokens of the entries that load into context (those without `defer_loading: true`), as JSON. */
export declare function loadedDefinitionTokens(
  entries: readonly object[],
  wrap?: (list: readonly object[]) => unknown,
): number;
/** Tokens of every entry as sent, deferred ones included. */
export declare function sentDefinitionTokens(
  entries: readonly object[],
  wrap?: (list: readonly object[]) => unknown,
): number;
