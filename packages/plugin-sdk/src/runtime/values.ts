import { explainMissingGlobal } from './globals/index.js';
import { getOwnPropertyDescriptor, getPrototypeOf, hasOwn, StringCtor, stringify } from './intrinsics.js';
import type { WireIssue } from './protocol.js';

/** What a zod schema is to the runtime: only its `safeParse`, read as data. */
export interface SchemaLike {
  safeParse(value: unknown): {
    success: boolean;
    data?: unknown;
    error?: { issues: { path: PropertyKey[]; message: string }[] };
  };
}

/** Reads a data property along the prototype chain without ever calling a getter or a Proxy trap. */
export function readData(value: object, key: string): unknown {
  let node: object | null = value;
  for (let depth = 0; depth < 8 && node !== null; depth++) {
    const descriptor = getOwnPropertyDescriptor(node, key);
    if (descriptor !== undefined) return hasOwn(descriptor, 'value') ? descriptor.value : undefined;
    node = getPrototypeOf(node) as object | null;
  }
  return undefined;
}

export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** Describes a thrown value; hostile errors (getters, proxies) give a placeholder, never a hang. */
export function messageOf(error: unknown): string {
  try {
    if (typeof error === 'string') return clip(error, 4000);
    if (error !== null && (typeof error === 'object' || typeof error === 'function')) {
      const name = readData(error, 'name');
      const message = readData(error, 'message');
      const text = typeof message === 'string' ? message : '(an error without a readable message)';
      const hinted = name === 'ReferenceError' ? explainMissingGlobal(text) : text;
      return clip(typeof name === 'string' && name !== 'Error' ? `${name}: ${hinted}` : hinted, 4000);
    }
    return `a non-error value was thrown (${typeof error})`;
  } catch {
    return 'an unreadable error was thrown';
  }
}

export function issuesOf(result: ReturnType<SchemaLike['safeParse']>): WireIssue[] {
  return (result.error?.issues ?? []).map((issue) => ({
    path: issue.path.length === 0 ? '(root)' : issue.path.map((p) => StringCtor(p)).join('.'),
    message: StringCtor(issue.message),
  }));
}

export const TOO_LARGE = { tooLarge: true };

/** JSON of a value, stopping early once it would exceed `maxChars` (never builds a huge string). */
export function cappedStringify(value: unknown, maxChars: number): string {
  let budget = maxChars;
  const text = stringify(value, (key: string, v: unknown) => {
    budget -= key.length + 4;
    if (typeof v === 'string') budget -= v.length;
    if (budget < 0) throw TOO_LARGE;
    return v;
  });
  if (text === undefined) return 'null';
  if (text.length > maxChars) throw TOO_LARGE;
  return text;
}

/** Whether a tool's return value is a promise (or thenable) to wait for. */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}
