/**
 * A positive integer from the environment (`name`), or `fallback`; anything else ends the bench
 * with a message naming the variable.
 */
export function setting(name, fallback) {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) {
    console.error(`bench: ${name} must be a positive integer`);
    process.exit(2);
  }
  return value;
}
