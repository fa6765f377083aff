import type { SearchableTool } from '../../packages/host/src/core/search/types.js';

/** Anything with the search index's `search`: names of hits, best first. */
interface Searchable {
  search(query: string, limit?: number): readonly { name: string }[];
}
/** The catalogue's tools as the search index reads them, under their Map names. */
export declare const catalogTools: SearchableTool[];
/** Plain Okapi BM25 over name + description: the baseline. */
export declare function createBaseline(list: readonly SearchableTool[]): Searchable;
/** Recall @1 and @5 (as "95.5 %") of `index` over the requests of `set`, and the misses. */
export declare function recall(
  index: Searchable,
  set?: 'tune' | 'heldout',
): { n: number; at1: string; at5: string; misses: string[] };
