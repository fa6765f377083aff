// Tool-search changes judged on the tune set only, by folds: the tune requests are dealt into
// five folds (every fifth request), and a change is worth keeping when it helps across folds, not
// on one: kept when recall@5 falls on no fold and mean reciprocal rank rises overall and on more
// folds than it falls (the tune set's recall@5 is near its ceiling; rank still says something).
// Reads no held-out request. Compares two builds of packages/host/src/core/search:
//   node bench/tool-search-cv.mjs [before.mjs] [after.mjs]
// each an ES module exporting createToolIndex (default: the built dist/ for both), e.g. made with
//   npx esbuild packages/host/src/core/search/index.ts --bundle --format=esm --outfile=/tmp/x.mjs
import { pathToFileURL } from 'node:url';
import { catalogTools, mapName, queries } from './lib/search-recall.mjs';

const FOLDS = 5;
const tune = queries.filter((q) => q.set === 'tune');

/** Per fold: recall@1, recall@5 and mean reciprocal rank (top 10) of `index`. */
function folds(index) {
  const out = Array.from({ length: FOLDS }, () => ({ n: 0, at1: 0, at5: 0, rr: 0 }));
  tune.forEach((q, i) => {
    const f = out[i % FOLDS];
    const expected = new Set(q.expected.map((e) => mapName(...e.split('/'))));
    const rank = index.search(q.query, 10).findIndex((h) => expected.has(h.name));
    f.n++;
    if (rank === 0) f.at1++;
    if (rank >= 0 && rank < 5) f.at5++;
    if (rank >= 0) f.rr += 1 / (rank + 1);
  });
  return out;
}

const load = async (file) =>
  file
    ? (await import(pathToFileURL(file).href)).createToolIndex
    : (await import('../packages/host/dist/core/search/index.js')).createToolIndex;
const [before, after] = [
  folds((await load(process.argv[2]))(catalogTools)),
  folds((await load(process.argv[3]))(catalogTools)),
];
const pct = (x, n) => `${((100 * x) / n).toFixed(1)}`.padStart(5);
console.log('fold   n   @5 before→after   @1 before→after   MRR before→after');
const sum = (list, k) => list.reduce((s, f) => s + f[k], 0);
before.forEach((b, i) => {
  const a = after[i];
  console.log(
    `${String(i).padEnd(4)} ${String(b.n).padStart(3)}  ${pct(b.at5, b.n)} → ${pct(a.at5, a.n)}    ${pct(b.at1, b.n)} → ${pct(a.at1, a.n)}    ${(b.rr / b.n).toFixed(3)} → ${(a.rr / a.n).toFixed(3)}`,
  );
});
const n = tune.length;
console.log(
  `all  ${String(n).padStart(3)}  ${pct(sum(before, 'at5'), n)} → ${pct(sum(after, 'at5'), n)}    ${pct(sum(before, 'at1'), n)} → ${pct(sum(after, 'at1'), n)}    ${(sum(before, 'rr') / n).toFixed(3)} → ${(sum(after, 'rr') / n).toFixed(3)}`,
);
if (process.env.VERBOSE) {
  // Tune requests whose rank of the expected tool changed (ranks from 1; '-' = not in the top 10).
  const [b, a] = [await load(process.argv[2]), await load(process.argv[3])].map((f) => f(catalogTools));
  const rank = (index, q) => {
    const expected = new Set(q.expected.map((e) => mapName(...e.split('/'))));
    const r = index.search(q.query, 10).findIndex((h) => expected.has(h.name));
    return r < 0 ? '-' : String(r + 1);
  };
  for (const q of tune) {
    const [rb, ra] = [rank(b, q), rank(a, q)];
    if (rb !== ra)
      console.log(
        `  ${rb} → ${ra}  ${q.query}  (${a
          .search(q.query, 3)
          .map((h) => h.name)
          .join(', ')})`,
      );
  }
}
