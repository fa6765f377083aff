/**
 * The providers' requests read into calls: an Anthropic `tool_use` block, an OpenAI Chat
 * Completions tool call, a Responses `function_call` item (and its client-executed
 * `tool_search_call`). Each item is checked here, once, so the session only ever sees a name and
 * an input, or the message for the model that says what was malformed.
 */
import { messageOf } from '../../../util/errors.js';
import type { AnthropicToolUseBlock } from './anthropic.js';
import type { OpenAIFunctionCall, OpenAIToolCall, OpenAIToolSearchCall } from './openai.js';

/** A call a model asked for, or why the request item cannot be one (`id` is '' when it has none). */
export type ParsedCall =
  | { readonly ok: true; readonly id: string; readonly name: string; readonly input: unknown }
  | { readonly ok: false; readonly id: string; readonly message: string };

/**
 * The items of `list` whose `type` is `type`; anything that is not an object is skipped, and a
 * `list` that is not an array has none. Generic so that the SDKs' own item types fit.
 */
function itemsOfType<T>(list: unknown, type: string): T[] {
  if (!Array.isArray(list)) return [];
  return list.filter(
    (item): item is T =>
      typeof item === 'object' && item !== null && (item as { type?: unknown }).type === type,
  );
}

/** The `tool_use` blocks of an assistant message's content, in order. */
export function toolUsesOf(content: unknown): AnthropicToolUseBlock[] {
  return itemsOfType<AnthropicToolUseBlock>(content, 'tool_use');
}

/** The `function_call` items of a Responses API output, in order. */
export function functionCallsOf(output: unknown): OpenAIFunctionCall[] {
  return itemsOfType<OpenAIFunctionCall>(output, 'function_call');
}

/** The client-executed `tool_search_call` items of a Responses API output, in order. */
export function clientToolSearchCallsOf(output: unknown): OpenAIToolSearchCall[] {
  return itemsOfType<OpenAIToolSearchCall>(output, 'tool_search_call').filter(
    (call) => call.execution === 'client',
  );
}

/** One Anthropic `tool_use` block: it needs a non-empty `id` and `name`; its `input` is the model's. */
export function parseToolUse(block: AnthropicToolUseBlock): ParsedCall {
  const id = typeof block?.id === 'string' ? block.id : '';
  if (id === '' || typeof block.name !== 'string' || block.name === '') {
    return { ok: false, id, message: 'Malformed tool_use block: it needs a non-empty "id" and "name"' };
  }
  return { ok: true, id, name: block.name, input: block.input };
}

/**
 * One Chat Completions tool call. A call of another type than `function` (a `custom` tool call)
 * is refused naming it; the arguments are a JSON string (empty means `{}`).
 */
export function parseOpenAIToolCall(toolCall: OpenAIToolCall): ParsedCall {
  const id = typeof toolCall?.id === 'string' ? toolCall.id : '';
  const type: unknown = toolCall?.type;
  if (id !== '' && typeof type === 'string' && type !== 'function') {
    return {
      ok: false,
      id,
      message: `Tool calls of type "${type}" are not supported here: every tool is a function tool`,
    };
  }
  const fn: unknown = toolCall?.function;
  const name = typeof fn === 'object' && fn !== null ? (fn as { name?: unknown }).name : undefined;
  const args = typeof fn === 'object' && fn !== null ? (fn as { arguments?: unknown }).arguments : undefined;
  if (id === '' || typeof name !== 'string' || name === '' || typeof args !== 'string') {
    return {
      ok: false,
      id,
      message: 'Malformed tool call: it needs an "id", and a "function" with a "name" and "arguments" string',
    };
  }
  return withArguments(id, name, args);
}

/** One Responses `function_call` item: a `call_id`, a `name` and an `arguments` JSON string. */
export function parseFunctionCall(call: OpenAIFunctionCall): ParsedCall {
  const id = typeof call.call_id === 'string' ? call.call_id : '';
  if (id === '' || typeof call.name !== 'string' || call.name === '' || typeof call.arguments !== 'string') {
    return {
      ok: false,
      id,
      message: 'Malformed function_call: it needs a "call_id", a "name" and an "arguments" string',
    };
  }
  return withArguments(id, call.name, call.arguments);
}

/** OpenAI's JSON-string arguments as the input (empty means `{}`); bad JSON is the model's error. */
function withArguments(id: string, name: string, args: string): ParsedCall {
  try {
    return { ok: true, id, name, input: JSON.parse(args === '' ? '{}' : args) };
  } catch (error) {
    return { ok: false, id, message: `The arguments of "${name}" are not valid JSON: ${messageOf(error)}` };
  }
}
