// Tool search quality and build cost. Recall@1 and @5 of (a) plain BM25 over name + description
// (the baseline) and (b) toolhost's search (packages/host/src/core/search), over the tools real MCP
// servers list (bench/fixtures/tool-catalog.json) and user-phrased requests
// (bench/fixtures/tool-queries.json; "tune" and the held-out third reported apart). Then the index
// build time for the catalogue and for 1,000 tools. Run after `npm run build`:
//   node bench/tool-search.mjs            (VERBOSE=1 lists the misses)
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { createToolIndex } from '../packages/host/dist/core/search/index.js';

const catalog = JSON.parse(readFileSync(new URL('./fixtures/tool-catalog.json', import.meta.url), 'utf8'));
const { queries } = JSON.parse(
  readFileSync(new URL('./fixtures/tool-queries.json', import.meta.url), 'utf8'),
);

/** As the MCP bridge names them in the Map: mcp__<server>__<tool>. */
const mapName = (server, name) => `mcp__${server}__${name}`.replace(/[^a-zA-Z0-9_-]/g, '_');
const tools = catalog.tools.map((t) => ({
  name: mapName(t.server, t.name),
  ...(t.title ? { title: t.title } : {}),
  description: t.description,
  inputSchema: t.inputSchema,
  owner: `mcp:${t.server}`,
}));

/** The baseline: Okapi BM25 (k1 1.2, b 0.75) over name + description, lowercase words, nothing else. */
function createBaseline(list) {
  const words = (s) =>
    s
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter(Boolean);
  const docs = list.map((t) => words(`${t.name} ${t.description}`));
  const avg = docs.reduce((n, d) => n + d.length, 0) / docs.length;
  const df = new Map();
  for (const d of docs) for (const w of new Set(d)) df.set(w, (df.get(w) ?? 0) + 1);
  return {
    search(query, limit = 5) {
      const q = [...new Set(words(query))];
      const hits = docs.map((d, i) => {
        let score = 0;
        for (const w of q) {
          const tf = d.filter((x) => x === w).length;
          if (!tf) continue;
          const n = df.get(w);
          const idf = Math.log(1 + (docs.length - n + 0.5) / (n + 0.5));
          score += (idf * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * d.length) / avg));
        }
        return { name: list[i].name, score };
      });
      return hits
        .filter((h) => h.score > 0)
        .sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : 1))
        .slice(0, limit);
    },
  };
}

function recall(index, set) {
  const chosen = queries.filter((q) => !set || q.set === set);
  let at1 = 0;
  let at5 = 0;
  const misses = [];
  for (const q of chosen) {
    const expected = new Set(q.expected.map((e) => mapName(...e.split('/'))));
    const hits = index.search(q.query, 5).map((h) => h.name);
    if (expected.has(hits[0])) at1++;
    if (hits.some((h) => expected.has(h))) at5++;
    else misses.push(`${q.query}  →  ${hits.slice(0, 3).join(', ')}  (wanted ${q.expected.join(' ')})`);
  }
  const pct = (n) => `${((100 * n) / chosen.length).toFixed(1)} %`;
  return { n: chosen.length, at1: pct(at1), at5: pct(at5), misses };
}

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
