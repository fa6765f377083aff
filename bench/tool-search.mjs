// Tool search quality and build cost. Recall@1 and @5 of (a) plain BM25 over name + description
// (the baseline) and (b) toolhost's search (packages/host/src/core/search), over the tools real MCP
// servers list (bench/fixtures/tool-catalog.json) and user-phrased requests
// (bench/fixtures/tool-queries.json; "tune" and the held-out third reported apart). Then the index
// build time for the catalogue and for 1,000 tools. Run after `npm run build`:
//   node bench/tool-search.mjs            (VERBOSE=1 lists the misses)
// SEARCH_MODULE=/tmp/x.mjs measures another build of the search (see bench/tool-search-cv.mjs).
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { catalog, createBaseline, queries, recall, catalogTools as tools } from './lib/search-recall.mjs';

const { createToolIndex } = await import(
  process.env.SEARCH_MODULE
    ? pathToFileURL(process.env.SEARCH_MODULE).href
    : '../packages/host/dist/core/search/index.js'
);

const baseline = createBaseline(tools);
const ours = createToolIndex(tools);
console.log(
  `catalogue: ${tools.length} tools from ${catalog.servers.length} servers; ${queries.length} requests`,
);
for (const [label, index] of [
  ['baseline BM25 (name+description)', baseline],
  ['toolhost search', ours],
]) {
  for (const set of ['tune', 'heldout', undefined]) {
    const r = recall(index, set);
    console.log(
      `${label.padEnd(34)} ${String(set ?? 'all').padEnd(8)} n=${r.n}  recall@1 ${r.at1}  recall@5 ${r.at5}`,
    );
    if (process.env.VERBOSE && set && label === 'toolhost search')
      for (const m of r.misses) console.log(`   miss [${set}] ${m}`);
  }
}

function buildMs(list, rounds) {
  const times = [];
  for (let i = 0; i < rounds; i++) {
    const start = performance.now();
    createToolIndex(list);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)].toFixed(2);
}
const thousand = Array.from({ length: 1000 }, (_, i) => {
  const t = tools[i % tools.length];
  return { ...t, name: `${t.name}_${Math.floor(i / tools.length)}` };
});
buildMs(tools, 3); // warm-up
console.log(
  `index build (median of 9): ${tools.length} tools ${buildMs(tools, 9)} ms; 1,000 tools ${buildMs(thousand, 9)} ms`,
);
const start = performance.now();
for (const q of queries) ours.search(q.query, 5);
console.log(
  `search: ${((performance.now() - start) / queries.length).toFixed(3)} ms per request (${tools.length} tools)`,
);
