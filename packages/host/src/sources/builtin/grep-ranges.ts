/**
 * Code-point sets for grep's linear-time engine (grep-linear.ts): the sets of JavaScript's class
 * escapes and `.`, JavaScript's case equivalences, and range arithmetic, written as RE2 classes.
 */

/** Inclusive code-point range. */
export type Range = readonly [number, number];

const MAX_CODE_POINT = 0x10ffff;
/** JavaScript's `\s`: WhiteSpace and LineTerminator. */
export const SPACE: readonly Range[] = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];
export const DIGIT: readonly Range[] = [[0x30, 0x39]];
export const WORD: readonly Range[] = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
];
/** What JavaScript's `.` does not match. */
export const LINE_TERMINATOR: readonly Range[] = [
  [0x0a, 0x0a],
  [0x0d, 0x0d],
  [0x2028, 0x2029],
];
/**
 * JavaScript's case-insensitive equality (ECMA-262 Canonicalize, without the `u` flag): a character
 * is equal to another when both upper-case to the same single character, except that nothing outside
 * ASCII is equal to a character inside it.
 */
function canonicalize(code: number): number {
  const upper = String.fromCharCode(code).toUpperCase();
  if (upper.length !== 1) return code;
  const canonical = upper.charCodeAt(0);
  return code >= 128 && canonical < 128 ? code : canonical;
}

interface CaseTable {
  /** For each character equal to some other, every character it is equal to (itself included). */
  readonly orbitOf: ReadonlyMap<number, readonly number[]>;
}

let cachedCaseTable: CaseTable | undefined;

/** Built on first use (tens of milliseconds: every BMP character is upper-cased once). */
export function caseTable(): CaseTable {
  if (cachedCaseTable !== undefined) return cachedCaseTable;
  const byCanonical = new Map<number, number[]>();
  for (let code = 0; code <= 0xffff; code++) {
    const canonical = canonicalize(code);
    const members = byCanonical.get(canonical);
    if (members === undefined) byCanonical.set(canonical, [code]);
    else members.push(code);
  }
  const orbitOf = new Map<number, readonly number[]>();
  for (const members of byCanonical.values()) {
    if (members.length > 1) for (const member of members) orbitOf.set(member, members);
  }
  cachedCaseTable = { orbitOf };
  return cachedCaseTable;
}

/** `ranges` plus every character equal, ignoring case, to one in them. */
export function caseClosure(ranges: readonly Range[]): Range[] {
  const merged = normalize(ranges);
  const closed: Range[] = [...merged];
  for (const [member, orbit] of caseTable().orbitOf) {
    if (contains(merged, member)) for (const other of orbit) closed.push([other, other]);
  }
  return normalize(closed);
}

/** Whether sorted, merged `ranges` contain `code`. */
function contains(ranges: readonly Range[], code: number): boolean {
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const range = ranges[mid] as Range;
    if (code < range[0]) hi = mid - 1;
    else if (code > range[1]) lo = mid + 1;
    else return true;
  }
  return false;
}

/** Sorted, merged ranges. */
function normalize(ranges: readonly Range[]): Range[] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const [lo, hi] of sorted) {
    const last = merged.at(-1);
    if (last !== undefined && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else merged.push([lo, hi]);
  }
  return merged;
}

/** Every code point not in `ranges` (astral ones included: a negated class matches an emoji). */
export function complement(ranges: readonly Range[]): Range[] {
  const out: Range[] = [];
  let next = 0;
  for (const [lo, hi] of normalize(ranges)) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= MAX_CODE_POINT) out.push([next, MAX_CODE_POINT]);
  return out;
}

export function classText(ranges: readonly Range[]): string {
  const merged = normalize(ranges);
  if (merged.length === 0) return `[^\\x{0}-\\x{${MAX_CODE_POINT.toString(16)}}]`;
  const hex = (code: number) => `\\x{${code.toString(16)}}`;
  return `[${merged.map(([lo, hi]) => (lo === hi ? hex(lo) : `${hex(lo)}-${hex(hi)}`)).join('')}]`;
}
