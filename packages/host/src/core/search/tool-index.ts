import { FIELD_NAMES, FIELDS, type FieldName, fieldTexts, termPairs } from './fields.js';
import { analyze } from './text.js';
import type { SearchableTool, SearchHit, ToolIndex } from './types.js';

/** BM25 saturation: how quickly more occurrences of a word stop adding to a tool's score. */
const K1 = 1.2;
/** Distinct query terms scored; a longer query is cut (a 10 KB paste must stay cheap). */
const MAX_QUERY_TERMS = 64;
/** Added when the query names the tool exactly ("browser_click"), so a known name always wins. */
const EXACT_NAME_BONUS = 100;
/**
 * Added in proportion to the share of the tool's own name (its last `__` segment: `create_issue`
 * of `mcp__github__create_issue`) that the query says: BM25 adds up terms one by one, so a tool
 * whose whole name the request spells out ("list the commits" → list_commits) could lose to one
 * with a rarer word of it in a long description. Small beside a term's score (0.5; chosen on the
 * tune set's folds, bench/tool-search-cv.mjs): it orders near-ties, it does not outvote the text.
 */
const NAME_COVERAGE_BONUS = 0.5;
const DEFAULT_LIMIT = 5;

/**
 * A tool's own name: what follows the last `__` (`create_issue` of `mcp__github__create_issue`),
 * or the whole name when it has no namespace (a plugin's or a built-in's).
 */
export function ownName(name: string): string {
  const at = name.lastIndexOf('__');
  return at < 0 ? name : name.slice(at + 2);
}

interface Posting {
  readonly doc: number;
  /** This term's whole contribution to the doc's score: idf × saturated weighted frequency. */
  readonly score: number;
}

/**
 * Builds a BM25F index over `tools` (name, title, description, parameter names, parameter
 * descriptions, owner; weights in fields.ts). Pure: same tools in, same rankings out, whatever
 * their order. Duplicate names keep the first.
 */
export function createToolIndex(tools: readonly SearchableTool[]): ToolIndex {
  const seen = new Set<string>();
  const docs = tools.filter((t) => !seen.has(t.name) && seen.add(t.name));
  const names = docs.map((d) => d.name);
  const exact = new Map(docs.map((d, i) => [d.name.toLowerCase(), i]));

  // Per doc, per field: the analysed terms (one stem cache for the whole build: tool text repeats).
  const stems = new Map<string, string>();
  const analysed = docs.map((doc) => {
    const texts = fieldTexts(doc);
    const name = analyze(texts.name, stems);
    const description = analyze(texts.description, stems);
    const derived: Partial<Record<FieldName, string[]>> = {
      name,
      namePairs: termPairs(name),
      description,
      descriptionPairs: termPairs(description),
    };
    return FIELD_NAMES.map((f) => derived[f] ?? analyze(texts[f], stems));
  });
  // The distinct words of each tool's own name, single letters left out ("x" of `x_post` names
  // nothing a request would say).
  const ownNames = docs.map((d) => [...new Set(analyze(ownName(d.name), stems).filter((t) => t.length > 1))]);
  const avgLength = FIELD_NAMES.map((_, f) => {
    let total = 0;
    for (const fields of analysed) total += (fields[f] as string[]).length;
    return docs.length ? total / docs.length || 1 : 1;
  });

  // Weighted, length-normalised term frequency per doc (BM25F); idf and saturation once df is known.
  const raw = new Map<string, { doc: number; score: number }[]>();
  const perDoc = new Map<string, number>();
  analysed.forEach((fields, doc) => {
    perDoc.clear();
    FIELD_NAMES.forEach((field, f) => {
      const terms = fields[f] as string[];
      if (terms.length === 0) return;
      const { weight, b } = FIELDS[field];
      const norm = weight / (1 - b + (b * terms.length) / (avgLength[f] as number));
      for (const term of terms) perDoc.set(term, (perDoc.get(term) ?? 0) + norm);
    });
    for (const [term, tf] of perDoc) {
      const list = raw.get(term);
      if (list) list.push({ doc, score: tf });
      else raw.set(term, [{ doc, score: tf }]);
    }
  });
  const postings: ReadonlyMap<string, readonly Posting[]> = raw;
  for (const list of raw.values()) {
    const idf = Math.log(1 + (docs.length - list.length + 0.5) / (list.length + 0.5));
    for (const p of list) p.score = (idf * p.score) / (K1 + p.score);
  }

  return {
    search(query: string, limit = DEFAULT_LIMIT): SearchHit[] {
      const max = Number.isFinite(limit) ? Math.max(0, Math.floor(limit)) : DEFAULT_LIMIT;
      if (typeof query !== 'string' || max === 0) return [];
      const analysed = analyze(query);
      // The query's distinct words (within the cap: they also decide the name coverage), then its pairs.
      const said = new Set([...new Set(analysed)].slice(0, MAX_QUERY_TERMS));
      const terms = [...said, ...new Set(termPairs(analysed.slice(0, MAX_QUERY_TERMS)))];
      const scores = new Map<number, number>();
      for (const term of terms) {
        for (const p of postings.get(term) ?? []) scores.set(p.doc, (scores.get(p.doc) ?? 0) + p.score);
      }
      for (const [doc, score] of scores) {
        const own = ownNames[doc] as string[];
        if (own.length === 0) continue;
        let covered = 0;
        for (const term of own) if (said.has(term)) covered++;
        scores.set(doc, score + (NAME_COVERAGE_BONUS * covered) / own.length);
      }
      for (const word of query.slice(0, 4_000).toLowerCase().split(/\s+/)) {
        const doc = exact.get(word);
        if (doc !== undefined) scores.set(doc, (scores.get(doc) ?? 0) + EXACT_NAME_BONUS);
      }
      const hits: SearchHit[] = [];
      for (const [doc, score] of scores) hits.push({ name: names[doc] as string, score });
      hits.sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      return hits.slice(0, max);
    },
  };
}
