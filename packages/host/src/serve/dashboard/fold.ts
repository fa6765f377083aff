/**
 * Long call inputs and results, folded for the event stream: a page shows the start of a 5 MB
 * result, not the whole of it, and the stream's history stays small.
 */

/** Strings longer than this are cut. */
export const MAX_STRING = 2_000;
/** A payload whose JSON is longer than this (after cutting strings) becomes a preview. */
export const MAX_PAYLOAD = 20_000;

/** The shape of a payload too long to send whole. */
export interface Folded {
  readonly folded: true;
  /** The first {@link MAX_STRING} characters of its JSON. */
  readonly preview: string;
  /** Length of its JSON, characters. */
  readonly chars: number;
}

function cut(text: string): string {
  return text.length <= MAX_STRING
    ? text
    : `${text.slice(0, MAX_STRING)}…(${text.length - MAX_STRING} more chars)`;
}

/** A copy of `value` with every long string cut; `value` itself when nothing needed cutting. */
function cutStrings(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return cut(value);
  if (typeof value !== 'object' || value === null || depth > 64) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      const next = cutStrings(item, depth + 1);
      if (next !== item) {
        copy ??= value.slice();
        copy[i] = next;
      }
    }
    return copy ?? value;
  }
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key];
    const next = cutStrings(item, depth + 1);
    if (next !== item) {
      copy ??= { ...(value as Record<string, unknown>) };
      copy[key] = next;
    }
  }
  return copy ?? value;
}

/**
 * `value` ready to send: long strings cut (`…(N more chars)`), and the whole replaced by
 * `{ folded, preview, chars }` when its JSON is still over {@link MAX_PAYLOAD} characters (or
 * cannot be written as JSON at all: a cycle, a BigInt).
 */
export function fold(value: unknown): unknown {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    const text = `(not JSON: ${(error as Error)?.message ?? String(error)})`;
    return { folded: true, preview: text.slice(0, MAX_STRING), chars: 0 } satisfies Folded;
  }
  if (json === undefined) return null;
  if (json.length <= MAX_STRING) return value; // no string in it can be over the limit
  const cutValue = cutStrings(value, 0);
  const cutJson = cutValue === value ? json : JSON.stringify(cutValue);
  if (cutJson.length <= MAX_PAYLOAD) return cutValue;
  return { folded: true, preview: json.slice(0, MAX_STRING), chars: json.length } satisfies Folded;
}
