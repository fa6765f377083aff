import type { JsonSchema, ToolDescriptor, ToolResult } from '@toolhost/plugin-sdk';
import { resultText } from '../../wrap/results.js';

/** A function tool as the OpenAI Chat Completions API takes it. */
export interface OpenAIFunctionTool {
  readonly type: 'function';
  readonly function: { readonly name: string; readonly description: string; readonly parameters: JsonSchema };
}

/** A tool call from an OpenAI assistant message; `arguments` is a JSON string. */
export interface OpenAIToolCall {
  readonly id: string;
  readonly type: 'function';
  readonly function: { readonly name: string; readonly arguments: string };
}

/** The `tool` message answering one call. */
export interface OpenAIToolMessage {
  readonly role: 'tool';
  readonly tool_call_id: string;
  readonly content: string;
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

/** OpenAI tool messages carry text only; an error is marked in the text, as the API has no flag. */
export function toOpenAIToolMessage(toolCallId: string, result: ToolResult): OpenAIToolMessage {
  const text =
    result.content.length === 0 && result.structuredContent !== undefined
      ? JSON.stringify(result.structuredContent)
      : resultText(result);
  return {
    role: 'tool',
    tool_call_id: toolCallId,
    content: result.isError === true ? `Error: ${text}` : text,
  };
}
