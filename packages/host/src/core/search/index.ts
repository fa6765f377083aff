/**
 * Tool search: which tools match a request, best first. A minimal stand-in (BM25 over names,
 * titles and descriptions) until the search part of issue 14 lands behind this same file and
 * export; code mode's `describe_tools` only relies on `createToolIndex(...).search(query, limit)`.
 */

export interface SearchableTool {
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  readonly inputSchema: Record<string, unknown>;
  /** e.g. 'plugin:github', 'mcp:github', 'core'. */
  readonly owner?: string;
}

export interface SearchHit {
  readonly name: string;
  readonly score: number;
}

export interface ToolIndex {
  search(query: string, limit?: number): SearchHit[];
}

/** Lower-case words of `text`, names split at `_`, `-`, `.` and camelCase. */
function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 0);
}

const K1 = 1.2;
const B = 0.75;

export function createToolIndex(tools: readonly SearchableTool[]): ToolIndex {
  // The name counts twice: it is the densest statement of what a tool does.
  const docs = tools.map((tool) => {
    const terms = [
      ...words(tool.name),
      ...words(tool.name),
      ...words(tool.title ?? ''),
      ...words(tool.description),
    ];
    const tf = new Map<string, number>();
    for (const term of terms) tf.set(term, (tf.get(term) ?? 0) + 1);
    return { name: tool.name, tf, length: terms.length };
  });
  const df = new Map<string, number>();
  for (const doc of docs) for (const term of doc.tf.keys()) df.set(term, (df.get(term) ?? 0) + 1);
  const avgLength = docs.reduce((sum, doc) => sum + doc.length, 0) / Math.max(docs.length, 1);
  return {
    search(query, limit = 5) {
      const terms = [...new Set(words(query))];
      const hits: SearchHit[] = [];
      for (const doc of docs) {
        let score = 0;
        for (const term of terms) {
          const f = doc.tf.get(term);
          if (f === undefined) continue;
          const n = df.get(term) ?? 0;
          const idf = Math.log(1 + (docs.length - n + 0.5) / (n + 0.5));
          score += (idf * f * (K1 + 1)) / (f + K1 * (1 - B + (B * doc.length) / avgLength));
        }
        if (score > 0) hits.push({ name: doc.name, score });
      }
      hits.sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      return hits.slice(0, Math.max(0, limit));
    },
  };
}
