import type { SearchableTool } from './types.js';

/** The parts of a tool the search reads, each weighed on its own. */
export type FieldName =
  | 'name'
  | 'namePairs'
  | 'title'
  | 'description'
  | 'params'
  | 'paramDescriptions'
  | 'owner';

/**
 * How much a word in each field counts (BM25F weights) and how much the field's length tempers it
 * (b). A word in the name says more than one in a long description; parameter descriptions are the
 * weakest evidence, but the only evidence for "…by its SHA" style requests. The owner (a server's
 * name, which is often also a common word: "everything", "memory", "git") and parameter
 * descriptions count less, and a long description is tempered less (b 0.5), than first guessed:
 * chosen by a grid over the weights on the bench's tune set only (bench/tool-search.mjs), where
 * every configuration near the best agreed on these three.
 */
export const FIELDS = {
  name: { weight: 3, b: 0.3 },
  // Adjacent pairs of the name's terms ("creat issue" of create_issue), met by adjacent query
  // terms: BM25 alone cannot tell "create issue" from a tool that creates and one that has issues.
  namePairs: { weight: 1.5, b: 0 },
  title: { weight: 2, b: 0.3 },
  description: { weight: 1, b: 0.5 },
  params: { weight: 0.8, b: 0.5 },
  paramDescriptions: { weight: 0.15, b: 0.75 },
  owner: { weight: 0.75, b: 0 },
} as const satisfies Record<FieldName, { weight: number; b: number }>;

export const FIELD_NAMES = Object.keys(FIELDS) as FieldName[];

/** Adjacent pairs of `terms`, as one term each ("creat issue"): a space never occurs in a term. */
export function termPairs(terms: readonly string[]): string[] {
  const pairs: string[] = [];
  for (let i = 1; i < terms.length; i++) pairs.push(`${terms[i - 1]} ${terms[i]}`);
  return pairs;
}

/** Bounds on the schema walk, so one tool with a huge schema cannot dominate the build. */
const MAX_DEPTH = 4;
const MAX_PROPERTIES = 100;

/** The raw text of each field of `tool` (not yet analysed). */
export function fieldTexts(tool: SearchableTool): Record<FieldName, string> {
  const params: string[] = [];
  const paramDescriptions: string[] = [];
  walkSchema(tool.inputSchema, 0, params, paramDescriptions);
  return {
    name: tool.name,
    namePairs: '', // made from the name's terms (termPairs), not from text
    title: tool.title ?? '',
    description: tool.description,
    params: params.join(' '),
    paramDescriptions: paramDescriptions.join(' '),
    // 'mcp:github' / 'plugin:github': the kind prefix says nothing about the tool, the id does.
    owner: (tool.owner ?? '').replace(/^(?:mcp|plugin|channel|custom):|^core$/, ''),
  };
}

/** Property names and descriptions of a JSON Schema: nested objects, array items and unions, bounded. */
function walkSchema(schema: unknown, depth: number, names: string[], descriptions: string[]): void {
  if (depth > MAX_DEPTH || names.length >= MAX_PROPERTIES || !isRecord(schema)) return;
  const properties = schema.properties;
  if (isRecord(properties)) {
    for (const [name, sub] of Object.entries(properties)) {
      if (names.length >= MAX_PROPERTIES) return;
      names.push(name);
      if (isRecord(sub) && typeof sub.description === 'string') descriptions.push(sub.description);
      walkSchema(sub, depth + 1, names, descriptions);
    }
  }
  walkSchema(schema.items, depth + 1, names, descriptions);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const list = schema[key];
    if (Array.isArray(list))
      for (const sub of list.slice(0, 8)) walkSchema(sub, depth + 1, names, descriptions);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
