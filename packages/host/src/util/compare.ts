/**
 * Orders strings by UTF-16 code unit, as `Array.prototype.sort` does by default: the same order on
 * every machine and locale (`localeCompare` is neither), so sorted output is deterministic.
 */
export function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
