/*
 * The tool search API every part of the context economy uses (issue 14). This is a minimal
 * stand-in — plain BM25 over names and descriptions — kept behind the same file and exports as
 * the real ranking, so that a merge takes the real one without touching its callers.
 */

/** A tool as the search index reads it. */
export interface SearchableTool {
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  readonly inputSchema: Record<string, unknown>;
  /** Who provides it, e.g. `plugin:github`, `mcp:github`, `core`. */
  readonly owner?: string;
}

/** One search result: a tool name and its score (higher is better). */
export interface SearchHit {
  readonly name: string;
  readonly score: number;
}

/** An index over a fixed set of tools. */
export interface ToolIndex {
  /** The best `limit` (default 5) tools for `query`, best first; ties in the order the tools were given. */
  search(query: string, limit?: number): SearchHit[];
}

/** Lower-case words of `text`, with snake_case, kebab-case and camelCase split apart. */
function terms(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((t) => t.length > 0);
}

const K1 = 1.2;
const B = 0.75;

/** Builds a BM25 index over the tools' names, titles and descriptions. */
export function createToolIndex(tools: readonly SearchableTool[]): ToolIndex {
  const docs = tools.map((tool) => {
    const words = terms(`${tool.name} ${tool.title ?? ''} ${tool.description}`);
    const tf = new Map<string, number>();
    for (const w of words) tf.set(w, (tf.get(w) ?? 0) + 1);
    return { name: tool.name, length: words.length, tf };
  });
  const df = new Map<string, number>();
  for (const doc of docs) for (const term of doc.tf.keys()) df.set(term, (df.get(term) ?? 0) + 1);
  const avg = docs.reduce((sum, d) => sum + d.length, 0) / Math.max(1, docs.length);
  return {
    search(query, limit = 5) {
      const q = [...new Set(terms(query))];
      const hits: SearchHit[] = [];
      for (const doc of docs) {
        let score = 0;
        for (const term of q) {
          const f = doc.tf.get(term);
          if (f === undefined) continue;
          const n = df.get(term) ?? 0;
          const idf = Math.log(1 + (docs.length - n + 0.5) / (n + 0.5));
          score += (idf * f * (K1 + 1)) / (f + K1 * (1 - B + (B * doc.length) / (avg || 1)));
        }
        if (score > 0) hits.push({ name: doc.name, score });
      }
      // Array.prototype.sort is stable: equal scores keep the tools' order.
      return hits.sort((a, b) => b.score - a.score).slice(0, Math.max(0, limit));
    },
  };
}
