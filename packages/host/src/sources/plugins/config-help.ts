/**
 * What to write in `plugins.<id>.config`, from the JSON Schema of the plugin's config: its shape
 * in one line, and the keys given that it does not know, each with the near miss it likely meant.
 */

type Schema = { readonly [key: string]: unknown };

const asSchema = (value: unknown): Schema | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Schema) : undefined;

/** A JSON Schema as a TypeScript-like type: `{ baseUrl: string, units?: "metric" | "imperial" }`. */
export function shapeOf(schema: unknown, depth = 0): string {
  const s = asSchema(schema);
  if (s === undefined) return 'unknown';
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (s.const !== undefined) return JSON.stringify(s.const);
  const union = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (Array.isArray(union)) return union.map((branch) => shapeOf(branch, depth)).join(' | ');
  if (s.type === 'array') return `${shapeOf(s.items, depth + 1)}[]`;
  if (s.type === 'object' || asSchema(s.properties) !== undefined) {
    const properties = asSchema(s.properties) ?? {};
    if (depth > 2) return 'object';
    const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
    const fields = Object.entries(properties).map(
      ([key, value]) => `${key}${required.has(key) ? '' : '?'}: ${shapeOf(value, depth + 1)}`,
    );
    return fields.length === 0 ? 'object' : `{ ${fields.join(', ')} }`;
  }
  return typeof s.type === 'string' ? (s.type === 'integer' ? 'number' : s.type) : 'unknown';
}

/** Edit distance, for near misses of short keys. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min((previous[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = row;
  }
  return previous[b.length] ?? 0;
}

/** The known key `key` most likely meant: the same but for case, else within two edits. */
function nearMiss(key: string, known: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  const sameCase = known.find((k) => k.toLowerCase() === lower);
  if (sameCase !== undefined) return sameCase;
  const scored = known.map((k) => [k, distance(lower, k.toLowerCase())] as const).sort((x, y) => x[1] - y[1]);
  const best = scored[0];
  return best !== undefined && best[1] <= Math.min(2, Math.floor(key.length / 3)) ? best[0] : undefined;
}

/** Top-level keys of `config` the schema does not name, each as `"baseURL" (did you mean "baseUrl"?)`. */
export function unknownKeys(schema: unknown, config: unknown): string[] {
  const properties = asSchema(asSchema(schema)?.properties);
  const given = asSchema(config);
  if (properties === undefined || given === undefined) return [];
  const known = Object.keys(properties);
  return Object.keys(given)
    .filter((key) => !Object.hasOwn(properties, key))
    .map((key) => {
      const meant = nearMiss(key, known);
      return `${JSON.stringify(key)}${meant === undefined ? '' : ` (did you mean ${JSON.stringify(meant)}?)`}`;
    });
}

/** The advice after a config error: where to write it, what shape, which keys are unknown. */
export function configAdvice(id: string, schema: unknown, config: unknown): string {
  const unknown = unknownKeys(schema, config);
  const where =
    config === undefined
      ? `add plugins.${id}.config to toolhost.config.json`
      : `correct plugins.${id}.config in toolhost.config.json`;
  return (
    `${where}${schema === undefined ? '' : `, shaped ${shapeOf(schema)}`}` +
    (unknown.length === 0 ? '' : `; unknown key${unknown.length === 1 ? '' : 's'} ${unknown.join(', ')}`)
  );
}
