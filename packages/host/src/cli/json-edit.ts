/**
 * Edits of a config file that change only what they add: each addition is one jsonc-parser
 * `modify` (an insertion at the end of its object or list) applied with `applyEdits`, and only the
 * inserted text is formatted, so every other byte (key order, indentation, lists written on one
 * line, the final newline, comments in a JSONC file) stays as written. An addition into an object
 * or list written on one line stays on that line; into one written over lines, it gets lines of
 * its own at the file's indentation.
 */
import {
  applyEdits,
  findNodeAtLocation,
  format,
  getNodeValue,
  type JSONPath,
  modify,
  type Node,
  parseTree,
} from 'jsonc-parser';

/** The indentation of the first indented line, else two spaces. */
function indentOf(text: string): { insertSpaces: boolean; tabSize: number } {
  const indent = /\n([ \t]+)\S/.exec(text)?.[1];
  if (indent === undefined) return { insertSpaces: true, tabSize: 2 };
  return indent.startsWith('\t')
    ? { insertSpaces: false, tabSize: 1 }
    : { insertSpaces: true, tabSize: indent.length };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `text` (a JSON or JSONC object) with `additions` merged in: objects key by key, lists by
 * appending the items not there yet; a value that is there stays, unless an object or list is
 * added where something else stands. No text (no file yet): the additions, two-space indented,
 * with a final newline.
 */
export function addToJson(text: string | undefined, additions: Record<string, unknown>): string {
  if (text === undefined) return `${JSON.stringify(additions, null, 2)}\n`;
  let out = text;
  const nodeAt = (path: JSONPath): Node | undefined => {
    const root = parseTree(out);
    return root === undefined ? undefined : findNodeAtLocation(root, path);
  };
  /** One insertion (or replacement) into the object or list at `container`. */
  const insert = (path: JSONPath, value: unknown, container: JSONPath) => {
    const node = nodeAt(container);
    const oneLine = node !== undefined && !out.slice(node.offset, node.offset + node.length).includes('\n');
    const [edit] = modify(out, path, value, { isArrayInsertion: typeof path.at(-1) === 'number' });
    if (edit === undefined) return;
    const changed = applyEdits(out, [edit]);
    const range = { offset: edit.offset, length: edit.content.length };
    const eol = out.includes('\r\n') ? '\r\n' : '\n';
    out = applyEdits(changed, format(changed, range, { ...indentOf(out), eol, keepLines: oneLine }));
  };
  const merge = (path: JSONPath, adding: Record<string, unknown>) => {
    for (const [key, value] of Object.entries(adding)) {
      const node = nodeAt([...path, key]);
      if (Array.isArray(value) && node?.type === 'array') {
        const seen = new Set((getNodeValue(node) as unknown[]).map((item) => JSON.stringify(item)));
        for (const item of value) {
          if (seen.has(JSON.stringify(item))) continue;
          seen.add(JSON.stringify(item));
          insert([...path, key, -1], item, [...path, key]);
        }
      } else if (isObject(value) && node?.type === 'object') {
        merge([...path, key], value);
      } else if (node === undefined || (typeof value === 'object' && value !== null)) {
        insert([...path, key], value, path);
      }
    }
  };
  merge([], additions);
  return out;
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
