// Token counting for the context benches. The yardstick is a real BPE tokenizer, OpenAI's
// o200k_base (gpt-tokenizer, pure JavaScript, pinned): exact for GPT-4o/4.1/5-class models, and a
// stand-in for Claude, whose current tokenizer is not published. Everything that enters a model's
// context is counted as the JSON the client sends; what an API adds around it is not known and
// not counted.
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';

/** The tokenizer the numbers are in, for the bench's output. */
export const TOKENIZER = 'o200k_base (gpt-tokenizer 4.0.0)';

/** Tokens of `text`. A special-token string in it (`<|endoftext|>`) throws rather than miscounts. */
export function tokens(text) {
  return countTokens(text);
}

/** Tokens of `value` as JSON, the way a client sends it. */
export function jsonTokens(value) {
  return countTokens(JSON.stringify(value));
}

/**
 * Tokens of tool definitions that load into the model's context each turn: entries marked
 * `defer_loading: true` (Anthropic, OpenAI Responses) travel in the request but are loaded only
 * once a search returns them, so they are left out. `wrap` shapes the list the way the client
 * sends it (an MCP `tools/list` result is `{tools: [...]}`).
 */
export function loadedDefinitionTokens(entries, wrap = (list) => list) {
  return jsonTokens(wrap(entries.filter((entry) => entry.defer_loading !== true)));
}

/** Tokens of the whole list as sent, deferred entries included (request size, not context). */
export function sentDefinitionTokens(entries, wrap = (list) => list) {
  return jsonTokens(wrap(entries));
}
