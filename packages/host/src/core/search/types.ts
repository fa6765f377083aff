/** A tool as the search sees it: listed metadata only, never an executor. */
export interface SearchableTool {
  /** The tool's name, as the model calls it. */
  readonly name: string;
  /** A human title, when the source gives one. */
  readonly title?: string;
  /** What the tool does, as its source describes it. */
  readonly description: string;
  /** The JSON Schema of its input; parameter names and descriptions are searched too. */
  readonly inputSchema: Record<string, unknown>;
  /** Who offers it, e.g. 'plugin:github', 'mcp:github', 'core'; a query naming the server finds its tools. */
  readonly owner?: string;
}

/** One result of a search: the tool's name and its score (higher is better; only the order means anything). */
export interface SearchHit {
  /** The tool's name. */
  readonly name: string;
  /** The relevance score; comparable only within one search. */
  readonly score: number;
}

/** An index over a fixed set of tools; build a new one when the set changes (it is cheap). */
export interface ToolIndex {
  /**
   * The tools that best match `query`, best first, ties broken by name; at most `limit` (default 5).
   * A query with no searchable words (empty, only punctuation) gives `[]`; nothing here throws.
   */
  search(query: string, limit?: number): SearchHit[];
}
