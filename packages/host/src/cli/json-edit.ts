/**
 * Edits of a JSON config file that keep its look as far as JSON allows: key order (JSON.parse
 * keeps it), indentation and the final newline. Comments cannot exist (it is JSON); a list written
 * on one line comes back one item per line.
 */

/** The indentation of the first indented line, else two spaces. */
function indentOf(text: string): string | number {
  const match = /\n([ \t]+)\S/.exec(text);
  return match?.[1] ?? 2;
}

/** `value` written as `original` was: same indentation, same final newline (one by default). */
export function formatLike(original: string | undefined, value: unknown): string {
  const json = JSON.stringify(value, null, original === undefined ? 2 : indentOf(original));
  const newline = original === undefined || original.endsWith('\n') ? '\n' : '';
  return json + newline;
}

/**
 * Merges `additions` into `target` in place: objects key by key, lists by appending the items
 * not there yet; anything else in `target` is kept.
 */
export function mergeAdditions(target: Record<string, unknown>, additions: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(additions)) {
    const current = Object.hasOwn(target, key) ? target[key] : undefined;
    if (Array.isArray(value)) {
      const list = Array.isArray(current) ? [...current] : [];
      for (const item of value) {
        if (!list.some((x) => JSON.stringify(x) === JSON.stringify(item))) list.push(item);
      }
      target[key] = list;
    } else if (typeof value === 'object' && value !== null) {
      const child =
        typeof current === 'object' && current !== null && !Array.isArray(current)
          ? (current as Record<string, unknown>)
          : {};
      mergeAdditions(child, value as Record<string, unknown>);
      target[key] = child;
    } else if (current === undefined) {
      target[key] = value;
    }
  }
}

/**
 * A line diff of two texts (longest common subsequence), unchanged lines as `  line`, removed as
 * `- line`, added as `+ line`; unchanged runs longer than `context` lines on either side of a
 * change are cut to `  …`. Config files are small: the quadratic table is fine.
 */
export function lineDiff(before: string, after: string, context = 3): string[] {
  const a = before === '' ? [] : before.replace(/\n$/, '').split('\n');
  const b = after.replace(/\n$/, '').split('\n');
  // lcs(i, j): the longest common run of a[i..] and b[j..], in a flat table.
  const width = b.length + 1;
  const table = new Int32Array((a.length + 1) * width);
  const lcs = (i: number, j: number): number => table[i * width + j] ?? 0;
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      table[i * width + j] = a[i] === b[j] ? lcs(i + 1, j + 1) + 1 : Math.max(lcs(i + 1, j), lcs(i, j + 1));
    }
  }
  const lines: { mark: ' ' | '-' | '+'; text: string }[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      lines.push({ mark: ' ', text: a[i] ?? '' });
      i++;
      j++;
    } else if (j < b.length && (i >= a.length || lcs(i, j + 1) >= lcs(i + 1, j))) {
      lines.push({ mark: '+', text: b[j] ?? '' });
      j++;
    } else {
      lines.push({ mark: '-', text: a[i] ?? '' });
      i++;
    }
  }
  const near = lines.map((_, k) =>
    lines.slice(Math.max(0, k - context), k + context + 1).some((line) => line.mark !== ' '),
  );
  const out: string[] = [];
  lines.forEach((line, k) => {
    if (near[k]) out.push(`${line.mark} ${line.text}`);
    else if (out.at(-1) !== '  …') out.push('  …');
  });
  return out;
}
