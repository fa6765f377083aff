/**
 * The name among `candidates` that `name` is most probably a misspelling of, for "did you mean"
 * hints: the same name in another case, else the nearest by edit distance (a swap of two neighbours
 * counts as one edit), within a bound that grows with the name's length. None when nothing is near.
 */
export function closestName(name: string, candidates: Iterable<string>): string | undefined {
  const lower = name.toLowerCase();
  const bound = name.length <= 3 ? 1 : name.length <= 7 ? 2 : 3;
  let best: string | undefined;
  let bestDistance = bound + 1;
  for (const candidate of candidates) {
    if (candidate === name) continue;
    if (candidate.toLowerCase() === lower) return candidate;
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) (rows[0] as number[])[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i] as number[];
    const up = rows[i - 1] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min((up[j] as number) + 1, (row[j - 1] as number) + 1, (up[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d = Math.min(d, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      }
      row[j] = d;
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
}
