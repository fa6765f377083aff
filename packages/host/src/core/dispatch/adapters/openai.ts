import type { JsonSchema, ToolDescriptor, ToolResult } from '@toolhost/plugin-sdk';
import { resultText } from '../../wrap/results.js';

/*
 * These shapes are written to be structurally compatible with the official `openai` SDK types,
 * without depending on it: Chat Completions (`ChatCompletionTool`, `ChatCompletionMessageToolCall`,
 * `ChatCompletionToolMessageParam`) and Responses (`FunctionTool`, `ResponseOutputItem`,
 * `ResponseInputItem.FunctionCallOutput`). `test/readme-types.test.ts` type-checks that against
 * the SDK.
 */

/** A function tool as the OpenAI Chat Completions API takes it (`ChatCompletionFunctionTool`). */
export interface OpenAIFunctionTool {
  readonly type: 'function';
  readonly function: { readonly name: string; readonly description: string; readonly parameters: JsonSchema };
}

/**
 * A tool call from a Chat Completions assistant message (`ChatCompletionMessageToolCall`);
 * `arguments` is a JSON string. Only function calls run: a call of another type (`custom`) is
 * answered with an error naming it.
 */
export interface OpenAIToolCall {
  readonly id: string;
  readonly type: string;
  readonly function?: { readonly name: string; readonly arguments: string };
}

/** The `tool` message answering one call (`ChatCompletionToolMessageParam`). */
export interface OpenAIToolMessage {
  readonly role: 'tool';
  readonly tool_call_id: string;
  readonly content: string;
}

/**
 * A function tool as the OpenAI Responses API takes it (`FunctionTool`). `strict` is false: strict
 * mode needs every property required and no extra keywords, which tool schemas rarely meet.
 */
export interface OpenAIResponsesTool {
  readonly type: 'function';
  readonly name: string;
  readonly description: string;
  readonly parameters: JsonSchema;
  readonly strict: false;
}

/** A Responses API function tool shown only once a tool search returns it. */
export interface OpenAIResponsesDeferredTool extends OpenAIResponsesTool {
  readonly defer_loading: true;
}

/** The Responses API tool search (`ToolSearchTool`): hosted, or executed by the client. */
export type OpenAIToolSearchTool =
  | { readonly type: 'tool_search' }
  | {
      readonly type: 'tool_search';
      readonly execution: 'client';
      readonly description: string;
      readonly parameters: JsonSchema;
    };

/** A Responses API `tools` entry when some tools are deferred. */
export type OpenAIResponsesToolEntry =
  | OpenAIResponsesTool
  | OpenAIResponsesDeferredTool
  | OpenAIToolSearchTool;

/** A `tool_search_call` item of a Responses API output (`ResponseToolSearchCall`). */
export interface OpenAIToolSearchCall {
  readonly type: 'tool_search_call';
  readonly call_id: string | null;
  readonly execution: 'server' | 'client';
  readonly arguments: unknown;
}

/** The input item answering a client-executed `tool_search_call` (`ResponseToolSearchOutputItemParam`). */
export interface OpenAIToolSearchOutput {
  readonly type: 'tool_search_output';
  readonly call_id: string;
  readonly execution: 'client';
  readonly status: 'completed';
  readonly tools: OpenAIResponsesDeferredTool[];
}

/** A descriptor as a deferred Responses API function tool. */
export function toOpenAIResponsesDeferredTool(descriptor: ToolDescriptor): OpenAIResponsesDeferredTool {
  return { ...toOpenAIResponsesTool(descriptor), defer_loading: true };
}

/** A `function_call` item of a Responses API output (`ResponseFunctionToolCall`). */
export interface OpenAIFunctionCall {
  readonly type: 'function_call';
  readonly call_id: string;
  readonly name: string;
  /** A JSON string. */
  readonly arguments: string;
}

/**
 * Any item of a Responses API output (`ResponseOutputItem`, or your own); only `function_call`
 * items are dispatched. Only `type` is required, so the SDK's item interfaces fit as they are.
 */
export type OpenAIResponseItem = OpenAIFunctionCall | { readonly type: string };

/** The input item answering one `function_call` (`ResponseInputItem.FunctionCallOutput`). */
export interface OpenAIFunctionCallOutput {
  readonly type: 'function_call_output';
  readonly call_id: string;
  readonly output: string;
}

/** A descriptor as an OpenAI function tool (Chat Completions `tools`). */
export function toOpenAITool(descriptor: ToolDescriptor): OpenAIFunctionTool {
  return {
    type: 'function',
    function: {
      name: descriptor.name,
      description: descriptor.description,
      parameters: descriptor.inputSchema,
    },
  };
}

/** A descriptor as an OpenAI Responses API function tool. */
export function toOpenAIResponsesTool(descriptor: ToolDescriptor): OpenAIResponsesTool {
  return {
    type: 'function',
    name: descriptor.name,
    description: descriptor.description,
    parameters: descriptor.inputSchema,
    strict: false,
  };
}

/** The text OpenAI gets for a result: text only; an error is marked in the text, as the APIs have no flag. */
function openAIText(result: ToolResult): string {
  const text =
    result.content.length === 0 && result.structuredContent !== undefined
      ? JSON.stringify(result.structuredContent)
      : resultText(result);
  return result.isError === true ? `Error: ${text}` : text;
}

/** A result as the Chat Completions `tool` message answering `toolCallId`. */
export function toOpenAIToolMessage(toolCallId: string, result: ToolResult): OpenAIToolMessage {
  return { role: 'tool', tool_call_id: toolCallId, content: openAIText(result) };
}

/** A result as the Responses API `function_call_output` item answering `callId`. */
export function toOpenAIFunctionCallOutput(callId: string, result: ToolResult): OpenAIFunctionCallOutput {
  return { type: 'function_call_output', call_id: callId, output: openAIText(result) };
}
