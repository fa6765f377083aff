/**
 * Folders of `permissions.fs` and `grants.fs`, and the request paths checked against them. Both
 * are relative to the project root and compared as normalized `/`-separated text before any file
 * system check (which `fs.ts` does on real paths).
 *
 * A grant covers a declared root when it is the same folder or an ancestor of it: granting
 * `data` covers a declared `data/cache`, but granting `data/cache` does not cover a declared
 * `data` (the plugin gets nothing rather than a silently narrower root).
 */

const MAX_ROOT_LENGTH = 4096;

/**
 * `./data`, `data/`, `data//sub` → `data`, `data/sub`; `.` or `./` → `.` (the project root).
 * Undefined for anything else: absolute paths, `..` segments, backslashes, NUL bytes, non-strings.
 */
export function normalizeFsRoot(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_ROOT_LENGTH) return undefined;
  if (value.includes('\0') || value.includes('\\') || isAbsoluteLike(value)) return undefined;
  return normalizeRelative(value);
}

/** Absolute on POSIX or on Windows (`C:…`, `\\server`), refused everywhere alike. */
export function isAbsoluteLike(value: string): boolean {
  return value.startsWith('/') || value.startsWith('\\') || /^[A-Za-z]:/.test(value);
}

/** Drops empty and `.` segments; undefined when a `..` segment appears anywhere. */
export function normalizeRelative(value: string): string | undefined {
  const segments = value.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.includes('..')) return undefined;
  return segments.length === 0 ? '.' : segments.join('/');
}

/** Whether normalized `inner` is `outer` or lies beneath it (both normalized). */
export function rootContains(outer: string, inner: string): boolean {
  return outer === '.' || inner === outer || inner.startsWith(`${outer}/`);
}
