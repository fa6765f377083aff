/**
 * The providers' face of a session: an Anthropic `tool_use` block, an OpenAI Chat Completions
 * tool call or a Responses `function_call` item in, its answer in that provider's shape out. Each
 * item is read by adapters/requests.ts and called through `Session.call`; `Session` extends this,
 * so these stay the session's own methods.
 */

import { errorResult } from '../wrap/results.js';
import type { CallOutcome } from '../wrap/wrapper.js';
import {
  type AnthropicContentBlock,
  type AnthropicToolResultBlock,
  type AnthropicToolUseBlock,
  toAnthropicToolResult,
} from './adapters/anthropic.js';
import {
  type OpenAIFunctionCallOutput,
  type OpenAIResponseItem,
  type OpenAIToolCall,
  type OpenAIToolMessage,
  toOpenAIFunctionCallOutput,
  toOpenAIToolMessage,
} from './adapters/openai.js';
import {
  functionCallsOf,
  type ParsedCall,
  parseFunctionCall,
  parseOpenAIToolCall,
  parseToolUse,
  toolUsesOf,
} from './adapters/requests.js';
import { SessionDeferral } from './session-deferral.js';
import type { CallOptions } from './session-types.js';

export abstract class SessionDispatch extends SessionDeferral {
  /** Calls a tool by name through the full wrapper; never throws (see `Session.call`). */
  abstract call(
    name: string,
    input: unknown,
    toolUseId?: string,
    options?: CallOptions,
  ): Promise<CallOutcome>;

  /** Answers one Anthropic `tool_use` block with its `tool_result` block. Never throws. */
  async dispatch(block: AnthropicToolUseBlock, options: CallOptions = {}): Promise<AnthropicToolResultBlock> {
    const parsed = parseToolUse(block);
    if (!parsed.ok) return toAnthropicToolResult(parsed.id, errorResult(parsed.message));
    if (
      this.catalog.searchAnswer === 'references' &&
      this.catalog.isSearch(parsed.name, this.catalogSnapshot())
    ) {
      return this.toolSearchResult(parsed.id, parsed.input);
    }
    const outcome = await this.call(parsed.name, parsed.input, parsed.id, options);
    return toAnthropicToolResult(parsed.id, outcome.result);
  }

  /**
   * Runs every `tool_use` block of an assistant message concurrently and returns their
   * `tool_result` blocks in the order of the blocks. Other content (and anything that is not a
   * block at all) is ignored; content that is not an array has no tool_use blocks.
   */
  async dispatchAll<Block extends AnthropicContentBlock>(
    content: readonly Block[],
    options: CallOptions = {},
  ): Promise<AnthropicToolResultBlock[]> {
    // Generic so that both the SDK's block interfaces and object literals with more fields fit.
    return Promise.all(toolUsesOf(content).map((block) => this.dispatch(block, options)));
  }

  /**
   * Answers one OpenAI Chat Completions tool call with its `tool` message. A call of another type
   * than `function` (a `custom` tool call) is answered with an error naming it. Never throws.
   */
  async dispatchOpenAI(toolCall: OpenAIToolCall, options: CallOptions = {}): Promise<OpenAIToolMessage> {
    const parsed = parseOpenAIToolCall(toolCall);
    return toOpenAIToolMessage(parsed.id, (await this.#callParsed(parsed, options)).result);
  }

  /**
   * Runs every `function_call` item of an OpenAI Responses API output concurrently and returns
   * their `function_call_output` items in the order of the calls, ready to go into the next
   * request's `input`. Other items (messages, reasoning…) are ignored. Never throws.
   */
  async dispatchOpenAIResponses<Item extends OpenAIResponseItem>(
    output: readonly Item[],
    options: CallOptions = {},
  ): Promise<OpenAIFunctionCallOutput[]> {
    return Promise.all(
      functionCallsOf(output).map(async (call) => {
        const parsed = parseFunctionCall(call);
        return toOpenAIFunctionCallOutput(parsed.id, (await this.#callParsed(parsed, options)).result);
      }),
    );
  }

  /** A parsed request item's call, or its error result when it could not be read. */
  #callParsed(parsed: ParsedCall, options: CallOptions): Promise<CallOutcome> {
    if (!parsed.ok) {
      return Promise.resolve({ result: errorResult(parsed.message), status: 'invalid-input', durationMs: 0 });
    }
    return this.call(parsed.name, parsed.input, parsed.id, options);
  }
}
