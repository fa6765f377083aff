import type { ToolDescriptor } from '@toolhost/plugin-sdk';
import type { RegisteredTool, ToolPolicy } from '../../types.js';
import { TOOL_SEARCH_NAME } from '../register/names.js';
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

// The search tool a session adds (MCP, Chat Completions, Anthropic client search): a meta tool's name.
export { TOOL_SEARCH_NAME };

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

/** The search tool as a descriptor; `loads` says whether what it finds joins the tool list. */
export function toolSearchDescriptor(loads: boolean): ToolDescriptor {
  return {
    name: TOOL_SEARCH_NAME,
    description: loads
      ? 'Finds tools that are not in your tool list yet. The tools found are added to your list and can be called at once; their names, descriptions and input schemas are returned.'
      : 'Finds tools that are not in your tool list yet; the tools found become available to call.',
    inputSchema: TOOL_SEARCH_INPUT as unknown as ToolDescriptor['inputSchema'],
    owner: { kind: 'core' },
    executor: { kind: 'core', executorId: `session/${TOOL_SEARCH_NAME}` },
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  };
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
