/**
 * Refuses an option a serve function was given in code that is not a whole number from 1 to
 * `max` (undefined: its default). With `max` Infinity, Infinity itself is allowed: no bound.
 */
export function checkOption(
  serving: 'serveHttp' | 'serveStdio',
  name: string,
  value: number | undefined,
  max = Number.MAX_SAFE_INTEGER,
): void {
  if (value === undefined || (Number.isSafeInteger(value) && value >= 1 && value <= max)) return;
  if (max === Number.POSITIVE_INFINITY && value === max) return;
  const range = max === Number.POSITIVE_INFINITY ? 'of at least 1, or Infinity' : `from 1 to ${max}`;
  throw new RangeError(`${serving}: ${name} must be a whole number ${range}, got ${String(value)}`);
}
