/**
 * The shapes of a session's tool list, by client (`session.tools(shape, {deferral})`): the tools
 * as each provider or MCP takes them, the deferral modes each offers, and the lists of the modes
 * a provider runs itself.
 */
import type { ToolDescriptor } from '@toolhost/plugin-sdk';
import {
  type AnthropicTool,
  type AnthropicToolEntry,
  toAnthropicDeferredTool,
  toAnthropicTool,
} from './adapters/anthropic.js';
import { type McpTool, toMcpTool } from './adapters/mcp.js';
import {
  type OpenAIFunctionTool,
  type OpenAIResponsesTool,
  type OpenAIResponsesToolEntry,
  toOpenAIResponsesDeferredTool,
  toOpenAIResponsesTool,
  toOpenAITool,
} from './adapters/openai.js';
import { TOOL_SEARCH_INPUT, TOOL_SEARCH_NAME, toolSearchDescriptor } from './deferral.js';

/** The tool shapes a session can hand to a model or client, by the name `session.tools(name)` takes. */
export interface ToolShapes {
  /** Anthropic Messages API `tools`. */
  anthropic: AnthropicTool;
  /** OpenAI Chat Completions `tools`. */
  openai: OpenAIFunctionTool;
  /** OpenAI Responses API `tools`. */
  'openai-responses': OpenAIResponsesTool;
  /** MCP `tools/list` entries. */
  mcp: McpTool;
}

/**
 * How deferred tools are handed over, by shape (see `session.tools(shape, {deferral})`):
 * - `meta` (the default, every shape): deferred tools are left out and a `tool_search` tool is
 *   added; what it finds is loaded into this session's list (MCP clients get `list_changed`),
 *   unless the session's searches only return definitions (`SessionOptions.searchLoads: false`).
 *   The MCP shape adds `call_tool` beside it, for clients that cache their list.
 * - `none`: every tool, nothing deferred.
 * - Anthropic `native-bm25` / `native-regex`: deferred tools carry `defer_loading: true` beside
 *   Anthropic's server-side search tool (beta `advanced-tool-use-2025-11-20`).
 * - Anthropic `client`: the same `defer_loading` tools beside an ordinary `tool_search` tool that
 *   `dispatch` answers with `tool_reference` blocks.
 * - OpenAI Responses `hosted`: `defer_loading: true` plus `{type: 'tool_search'}`; `client`: the
 *   deferred tools are left out, a client-executed `tool_search` is added, and
 *   `dispatchOpenAIToolSearch` answers its `tool_search_call` items.
 */
export interface DeferralModes {
  anthropic: 'meta' | 'none' | 'native-bm25' | 'native-regex' | 'client';
  openai: 'meta' | 'none';
  'openai-responses': 'meta' | 'none' | 'hosted' | 'client';
  mcp: 'meta' | 'none';
}

/** What `session.tools(shape, options)` returns, by shape: the tools, deferred ones, and search tools. */
export interface DeferredToolShapes {
  anthropic: AnthropicToolEntry;
  openai: OpenAIFunctionTool;
  'openai-responses': OpenAIResponsesToolEntry;
  mcp: McpTool;
}

/** Options of `session.tools(shape, options)`. */
export interface ToolsOptions<K extends keyof ToolShapes> {
  /** How deferred tools are handed over; default `meta`. */
  readonly deferral?: DeferralModes[K];
}

export const deferralModes: { [K in keyof ToolShapes]: readonly DeferralModes[K][] } = {
  anthropic: ['meta', 'none', 'native-bm25', 'native-regex', 'client'],
  openai: ['meta', 'none'],
  'openai-responses': ['meta', 'none', 'hosted', 'client'],
  mcp: ['meta', 'none'],
};

export const shapeConverters: { [K in keyof ToolShapes]: (descriptor: ToolDescriptor) => ToolShapes[K] } = {
  anthropic: toAnthropicTool,
  openai: toOpenAITool,
  'openai-responses': toOpenAIResponsesTool,
  mcp: toMcpTool,
};

/**
 * The lists of the provider-native deferral modes: Anthropic's `defer_loading` tools beside its
 * server-side search (`native-bm25`, `native-regex`) or an ordinary `tool_search` (`client`), and
 * the Responses API's `hosted` and `client` search. `shadowed`: a tool of the Map is named
 * `tool_search`, so a client-side search tool cannot be added.
 */
export function nativeList(
  shape: keyof ToolShapes,
  mode: string,
  descriptors: readonly ToolDescriptor[],
  deferred: ReadonlySet<string>,
  shadowed: boolean,
): unknown[] {
  if (shape === 'anthropic') {
    const list: AnthropicToolEntry[] = descriptors.map((d) =>
      deferred.has(d.name) ? toAnthropicDeferredTool(d) : toAnthropicTool(d),
    );
    // The search tool is never deferred, so at least one tool always stays loaded (the API
    // refuses a request whose tools are all deferred).
    if (mode === 'native-bm25')
      list.push({ type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' });
    else if (mode === 'native-regex') {
      list.push({ type: 'tool_search_tool_regex_20251119', name: 'tool_search_tool_regex' });
    } else {
      if (shadowed) {
        throw new TypeError(
          `A tool named "${TOOL_SEARCH_NAME}" exists in this session, so its tool search cannot be added; rename that tool or use a native search`,
        );
      }
      list.push(toAnthropicTool(toolSearchDescriptor('available')));
    }
    return list;
  }
  // openai-responses
  if (mode === 'hosted') {
    const list: OpenAIResponsesToolEntry[] = descriptors.map((d) =>
      deferred.has(d.name) ? toOpenAIResponsesDeferredTool(d) : toOpenAIResponsesTool(d),
    );
    list.push({ type: 'tool_search' });
    return list;
  }
  const list: OpenAIResponsesToolEntry[] = descriptors
    .filter((d) => !deferred.has(d.name))
    .map(toOpenAIResponsesTool);
  list.push({
    type: 'tool_search',
    execution: 'client',
    description: toolSearchDescriptor('available').description,
    parameters: TOOL_SEARCH_INPUT as unknown as OpenAIResponsesTool['parameters'],
  });
  return list;
}
