import type { ToolDescriptor } from '@toolhost/plugin-sdk';
import type { RegisteredTool, ToolPolicy } from '../../types.js';
import { CALL_TOOL_NAME, TOOL_SEARCH_NAME } from '../register/names.js';
import { matchesPattern, type PolicySubject, subjectOf } from '../register/policy.js';
import type { SearchableTool } from '../search/index.js';

/*
 * Deferral decides what the model is SHOWN up front, never what it may call: a deferred tool
 * stays under every policy, availability, active-set and hook rule, and the session refuses it
 * exactly as it refuses any other tool. Which tools are deferred, in order of precedence:
 *   1. `tools.catalog.always` patterns: never deferred (the operator keeps them loaded);
 *   2. `tools.defer` patterns: deferred;
 *   3. the descriptor's own `deferLoading` (true: deferred; false: never deferred by 4);
 *   4. `tools.catalog.autoBudgetTokens`: when the tools left by 1–3 would take more than this
 *      many tokens (estimated as JSON length / 4), all of them are deferred. All or none, so a
 *      new tool never reshuffles which others are loaded, and the prompt cache keeps its prefix.
 */

// The search tool a session adds (MCP, Chat Completions, Anthropic client search) and the
// call-through it adds over MCP: meta tools' names.
export { CALL_TOOL_NAME, TOOL_SEARCH_NAME };

/** Most results one search may ask for (Anthropic's own search returns 3–5). */
export const MAX_SEARCH_LIMIT = 10;

/** A rough count of the tokens a tool definition costs a turn: its JSON length / 4. */
export function estimateTokens(descriptor: ToolDescriptor): number {
  const json = JSON.stringify({
    name: descriptor.name,
    description: descriptor.description,
    input_schema: descriptor.inputSchema,
  });
  return Math.ceil(json.length / 4);
}

/**
 * The names of `descriptors` (the session's visible, active tools) that policy and the
 * descriptors defer. `tools` looks a descriptor's source up for `group:` patterns.
 */
export function deferredNames(
  descriptors: readonly ToolDescriptor[],
  tools: ReadonlyMap<string, RegisteredTool>,
  policy: ToolPolicy,
): ReadonlySet<string> {
  const { defer, catalog } = policy;
  const deferred = new Set<string>();
  if (defer === undefined && catalog === undefined && !descriptors.some((d) => d.deferLoading === true)) {
    return deferred; // the common case: nothing to decide
  }
  const auto: ToolDescriptor[] = [];
  for (const descriptor of descriptors) {
    const tool = tools.get(descriptor.name);
    const subject: PolicySubject =
      tool === undefined ? { name: descriptor.name, source: 'custom', sourceId: 'custom' } : subjectOf(tool);
    if (catalog?.always?.some((p) => matchesPattern(p, subject))) continue;
    if (defer?.some((p) => matchesPattern(p, subject)) || descriptor.deferLoading === true) {
      deferred.add(descriptor.name);
    } else if (descriptor.deferLoading !== false) {
      auto.push(descriptor);
    }
  }
  const budget = catalog?.autoBudgetTokens;
  if (budget !== undefined) {
    let total = 0;
    for (const descriptor of descriptors)
      if (!deferred.has(descriptor.name)) total += estimateTokens(descriptor);
    if (total > budget) for (const descriptor of auto) deferred.add(descriptor.name);
  }
  return deferred;
}

/** A descriptor as the search index reads it. */
export function searchableOf(descriptor: ToolDescriptor): SearchableTool {
  const owner = descriptor.owner;
  return {
    name: descriptor.name,
    ...(descriptor.title === undefined ? {} : { title: descriptor.title }),
    description: descriptor.description,
    inputSchema: descriptor.inputSchema,
    owner:
      owner.kind === 'plugin'
        ? `plugin:${owner.pluginId}`
        : owner.kind === 'mcp'
          ? `mcp:${owner.serverId}`
          : owner.kind === 'channel'
            ? `channel:${owner.channelId}`
            : owner.kind,
  };
}

/** The input schema of the search tool, for every shape. */
export const TOOL_SEARCH_INPUT = {
  type: 'object',
  properties: {
    query: {
      type: 'string',
      minLength: 1,
      description: 'What you want to do, in a few words (e.g. "create a github issue")',
    },
    limit: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_SEARCH_LIMIT,
      description: 'Most tools to return (default 5)',
    },
  },
  required: ['query'],
  additionalProperties: false,
} as const;

/**
 * How a search hands over what it finds: `load` adds the tools to the session's list (and a
 * listening client hears of it); `return` only returns their definitions, to be called through
 * `call_tool`, so the list never changes as a side effect (MCP 2026-07-28, where every client
 * shares the list); `available` is the native searches' (the API makes them callable).
 */
export type SearchHandover = 'load' | 'return' | 'available';

const SEARCH_DESCRIPTIONS: Record<SearchHandover, string> = {
  load: `Finds tools that are not in your tool list yet. The tools found are added to your list and can be called at once; their names, descriptions and input schemas are returned.`,
  return: `Finds tools that are not in your tool list and returns their names, descriptions and input schemas. Call one through ${CALL_TOOL_NAME} {name, arguments}.`,
  available: 'Finds tools that are not in your tool list yet; the tools found become available to call.',
};

/** The search tool as a descriptor; `withCallTool`: `call_tool` is listed beside it. */
export function toolSearchDescriptor(handover: SearchHandover, withCallTool = false): ToolDescriptor {
  const also =
    withCallTool && handover === 'load'
      ? ` If your list does not show them yet, call them through ${CALL_TOOL_NAME}.`
      : '';
  return {
    name: TOOL_SEARCH_NAME,
    description: SEARCH_DESCRIPTIONS[handover] + also,
    inputSchema: TOOL_SEARCH_INPUT as unknown as ToolDescriptor['inputSchema'],
    owner: { kind: 'core' },
    executor: { kind: 'core', executorId: `session/${TOOL_SEARCH_NAME}` },
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  };
}

/** The input schema of `call_tool`. */
export const CALL_TOOL_INPUT = {
  type: 'object',
  properties: {
    name: {
      type: 'string',
      minLength: 1,
      description: `The tool's name, as ${TOOL_SEARCH_NAME} returned it`,
    },
    arguments: { type: 'object', description: "The tool's input, as its input schema says" },
  },
  required: ['name'],
  additionalProperties: false,
} as const;

/**
 * `call_tool`: runs any tool the session may call by name. MCP clients that cache their tool
 * list (most agent frameworks do, within a turn or for good) never see what a search loads; they
 * reach it through this. No annotations: what it does is the named tool's.
 */
export function callToolDescriptor(): ToolDescriptor {
  return {
    name: CALL_TOOL_NAME,
    description: `Calls a tool by name with its arguments, such as one that ${TOOL_SEARCH_NAME} found. The same rules apply as when the tool is called directly.`,
    inputSchema: CALL_TOOL_INPUT as unknown as ToolDescriptor['inputSchema'],
    owner: { kind: 'core' },
    executor: { kind: 'core', executorId: `session/${CALL_TOOL_NAME}` },
  };
}

/** A `call_tool` input, checked: the tool's name and arguments, or what is wrong. */
export function parseCallToolInput(
  input: unknown,
): { ok: true; name: string; arguments: unknown } | { ok: false; message: string } {
  const fail = (path: string, problem: string) => ({
    ok: false as const,
    message: `Invalid input for tool "${CALL_TOOL_NAME}": at "${path}": ${problem}`,
  });
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return fail('(root)', 'must be an object {name, arguments?}');
  }
  const { name, arguments: args, ...rest } = input as { name?: unknown; arguments?: unknown };
  if (typeof name !== 'string' || name.trim() === '') {
    return fail('name', 'must be the name of a tool (a non-empty string)');
  }
  if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
    return fail('arguments', "must be an object (the tool's input)");
  }
  const extra = Object.keys(rest)[0];
  if (extra !== undefined)
    return fail(extra, 'is not a key of call_tool (put the tool\'s input under "arguments")');
  if (name === CALL_TOOL_NAME)
    return { ok: false, message: `${CALL_TOOL_NAME} cannot call itself: name the tool to run` };
  return { ok: true, name, arguments: args ?? {} };
}

/**
 * A search request's input, checked: `{query, limit?}`, or what is wrong: `message` for a reply
 * of its own, `path` and `problem` for an input issue.
 */
export function parseSearchInput(
  input: unknown,
):
  | { ok: true; query: string; limit: number }
  | { ok: false; path: string; problem: string; message: string } {
  const fail = (path: string, problem: string) => ({
    ok: false as const,
    path,
    problem,
    message: `${TOOL_SEARCH_NAME}: ${path === '(root)' ? 'the input' : `"${path}"`} ${problem}`,
  });
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return fail('(root)', 'must be an object {query, limit?}');
  }
  const { query, limit } = input as { query?: unknown; limit?: unknown };
  if (typeof query !== 'string' || query.trim() === '') return fail('query', 'must be a non-empty string');
  if (
    limit !== undefined &&
    (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_SEARCH_LIMIT)
  ) {
    return fail('limit', `must be an integer from 1 to ${MAX_SEARCH_LIMIT}`);
  }
  return { ok: true, query, limit: (limit as number | undefined) ?? 5 };
}
