import type { SearchableTool } from './types.js';

/** The parts of a tool the search reads, each weighed on its own. */
export type FieldName =
  | 'name'
  | 'namePairs'
  | 'title'
  | 'description'
  | 'descriptionPairs'
  | 'params'
  | 'paramDescriptions'
  | 'enums'
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
  // The description's adjacent pairs, at half its weight as namePairs are at half the name's (not
  // tuned: kept because it helped the tune set's folds, bench/tool-search-cv.mjs).
  descriptionPairs: { weight: 0.5, b: 0.5 },
  params: { weight: 0.8, b: 0.5 },
  paramDescriptions: { weight: 0.15, b: 0.75 },
  // A parameter's enum values ("closed", "soft"): as weak as parameter descriptions, whose weight it
  // takes untuned; counted in the parameter names they flooded them and lost requests.
  enums: { weight: 0.15, b: 0.75 },
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
const MAX_ENUM = 20;

/** The raw text of each field of `tool` (not yet analysed). */
export function fieldTexts(tool: SearchableTool): Record<FieldName, string> {
  const params: string[] = [];
  const paramDescriptions: string[] = [];
  const enums: string[] = [];
  walkSchema(tool.inputSchema, 0, params, paramDescriptions, enums);
  return {
    name: tool.name,
    namePairs: '', // made from the name's terms (termPairs), not from text
    title: tool.title ?? '',
    description: tool.description,
    descriptionPairs: '', // made from the description's terms (termPairs)
    params: params.join(' '),
    paramDescriptions: paramDescriptions.join(' '),
    enums: enums.join(' '),
    // 'mcp:github' / 'plugin:github': the kind prefix says nothing about the tool, the id does.
    owner: (tool.owner ?? '').replace(/^(?:mcp|plugin|channel|custom):|^core$/, ''),
  };
}

/**
 * Property names, descriptions and enum values of a JSON Schema: nested objects, array items and
 * unions, bounded.
 */
function walkSchema(
  schema: unknown,
  depth: number,
  names: string[],
  descriptions: string[],
  enums: string[],
): void {
  if (depth > MAX_DEPTH || names.length >= MAX_PROPERTIES || !isRecord(schema)) return;
  pushEnum(schema, enums);
  const properties = schema.properties;
  if (isRecord(properties)) {
    for (const [name, sub] of Object.entries(properties)) {
      if (names.length >= MAX_PROPERTIES) return;
      names.push(name);
      if (isRecord(sub) && typeof sub.description === 'string') descriptions.push(sub.description);
      walkSchema(sub, depth + 1, names, descriptions, enums);
    }
  }
  walkSchema(schema.items, depth + 1, names, descriptions, enums);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const list = schema[key];
    if (Array.isArray(list))
      for (const sub of list.slice(0, 8)) walkSchema(sub, depth + 1, names, descriptions, enums);
  }
}

/** A parameter's string enum values ("png", "jpeg"; const too): what the parameter can say. */
function pushEnum(schema: Record<string, unknown>, enums: string[]): void {
  const values = Array.isArray(schema.enum) ? schema.enum : 'const' in schema ? [schema.const] : [];
  for (const value of values.slice(0, MAX_ENUM))
    if (typeof value === 'string' && enums.length < MAX_PROPERTIES) enums.push(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
