/**
 * What the audit trail keeps of an input: the input with every value under a key that looks like
 * a credential replaced, and every occurrence of a granted secret's value (a plugin's granted
 * environment variable, an MCP server's `env` or `headers`, a serve token) cut out of every string
 * and key, however deep. Its hash is taken after the secrets are cut out, so no record, nor a
 * hash in it, holds a granted secret; a value under a credential-like key does enter the hash.
 */
import { createHash } from 'node:crypto';

/** Keys whose values are never recorded (case-insensitive, anywhere in the key). */
export const DEFAULT_REDACT_KEYS: readonly string[] = [
  'password',
  'passwd',
  'secret',
  'token',
  'apikey',
  'api_key',
  'api-key',
  'authorization',
  'cookie',
  'credential',
  'private_key',
  'privatekey',
];

export const REDACTED = '[redacted]';

/** Shorter values are not cut out of text (they would match everywhere and hide nothing). */
const MIN_SECRET_LENGTH = 4;
/** Deeper than this, a value is recorded as cut. */
const MAX_DEPTH = 32;

export interface Redactor {
  /** A copy of `value` fit for the trail. */
  redact(value: unknown): unknown;
  /** sha256 of the value's JSON with the granted secrets cut out (`sha256:<hex>`). */
  hash(value: unknown): string;
  /** `text` with the granted secrets cut out. */
  text(text: string): string;
}

export function createRedactor(
  secrets: Iterable<string>,
  keys: readonly string[] = DEFAULT_REDACT_KEYS,
): Redactor {
  // Longest first, so a secret that contains another is cut whole.
  const values = [...new Set([...secrets].filter((s) => s.length >= MIN_SECRET_LENGTH))].sort(
    (a, b) => b.length - a.length,
  );
  const lowered = keys.map((k) => k.toLowerCase());
  const text = (input: string): string => {
    let out = input;
    for (const secret of values) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    return out;
  };
  const sensitive = (key: string) => {
    const k = key.toLowerCase();
    return lowered.some((pattern) => k.includes(pattern));
  };
  const walk = (value: unknown, depth: number, byKey: boolean): unknown => {
    if (typeof value === 'string') return text(value);
    if (value === null || typeof value !== 'object') return value;
    if (depth >= MAX_DEPTH) return '[too deep]';
    if (Array.isArray(value)) return value.map((item) => walk(item, depth + 1, byKey));
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      out[text(key)] = byKey && sensitive(key) ? REDACTED : walk(item, depth + 1, byKey);
    }
    return out;
  };
  return {
    redact: (value) => walk(value, 0, true),
    hash(value) {
      let json: string;
      try {
        json = JSON.stringify(walk(value, 0, false)) ?? 'null';
      } catch {
        json = '"[not JSON]"';
      }
      return `sha256:${createHash('sha256').update(json).digest('hex')}`;
    },
    text,
  };
}
