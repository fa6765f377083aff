/**
 * TypeScript-style signatures of tools, written from their JSON Schemas, for a model writing
 * code against `tools.<name>(input)`. A reading aid, not a type checker: what has no short
 * TypeScript form (`$ref`, `not`, `patternProperties`) reads `unknown`, and the host still
 * validates every input against the real schema.
 */

/** What a signature is written from: a descriptor will do. */
export interface SignatureSource {
  readonly name: string;
  readonly description?: string;
  readonly inputSchema: Record<string, unknown>;
  readonly outputSchema?: Record<string, unknown>;
}

/** Deeper schemas are cut to `unknown`: a signature is for reading, not for every corner. */
const MAX_DEPTH = 6;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** How a property or tool name is written: bare when it is an identifier, else quoted. */
function key(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

/** How to call tool `name` from code: `tools.name` or `tools["a-b"]`. */
export function accessor(name: string): string {
  return IDENTIFIER.test(name) ? `tools.${name}` : `tools[${JSON.stringify(name)}]`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function union(types: readonly string[]): string {
  const unique = [...new Set(types)];
  if (unique.includes('unknown')) return 'unknown';
  return unique.length === 0 ? 'never' : unique.join(' | ');
}

function literal(value: unknown): string {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value)
    ? JSON.stringify(value)
    : 'unknown';
}

function objectType(schema: Record<string, unknown>, depth: number): string {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
  const fields = Object.entries(properties).map(
    ([name, sub]) => `${key(name)}${required.has(name) ? '' : '?'}: ${typeOf(sub, depth + 1)}`,
  );
  const extra = schema.additionalProperties;
  if (extra === true || (extra === undefined && fields.length === 0)) fields.push('[key: string]: unknown');
  else if (isRecord(extra)) fields.push(`[key: string]: ${typeOf(extra, depth + 1)}`);
  return fields.length === 0 ? '{}' : `{ ${fields.join('; ')} }`;
}

/** The TypeScript type a JSON Schema describes, as far as a short form says it. */
export function typeOf(schema: unknown, depth = 0): string {
  if (schema === true) return 'unknown';
  if (schema === false) return 'never';
  if (!isRecord(schema) || depth > MAX_DEPTH) return 'unknown';
  if ('const' in schema) return literal(schema.const);
  if (Array.isArray(schema.enum)) return union(schema.enum.map(literal));
  for (const combinator of ['anyOf', 'oneOf'] as const) {
    const options = schema[combinator];
    if (Array.isArray(options)) return union(options.map((option) => typeOf(option, depth + 1)));
  }
  if (Array.isArray(schema.allOf)) {
    const parts = schema.allOf.map((part) => typeOf(part, depth + 1));
    return parts.includes('unknown') ? 'unknown' : parts.join(' & ');
  }
  const type = schema.type;
  if (Array.isArray(type)) return union(type.map((t) => typeOf({ ...schema, type: t }, depth)));
  switch (type) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array': {
      const items = typeOf(schema.items ?? true, depth + 1);
      return /^[A-Za-z]+$/.test(items) ? `${items}[]` : `Array<${items}>`;
    }
    case 'object':
      return objectType(schema, depth);
    default:
      return isRecord(schema.properties) ? objectType(schema, depth) : 'unknown';
  }
}

/**
 * One tool as a model reads it in code mode: its description's first line as a comment, then
 * `name(input: {...}): Promise<...>`. The promise resolves with the output schema's type when the
 * tool declares one.
 */
export function signatureOf(tool: SignatureSource): string {
  const summary = (tool.description ?? '').split('\n')[0]?.trim() ?? '';
  const output = tool.outputSchema === undefined ? 'unknown' : typeOf(tool.outputSchema);
  const line = `${key(tool.name)}(input: ${typeOf(tool.inputSchema)}): Promise<${output}>`;
  return summary === '' ? line : `/** ${summary.replaceAll('*/', '* /')} */\n${line}`;
}
