/**
 * What the audit trail keeps of an input: the input with every value under a key that looks like
 * a credential replaced, and every occurrence of a granted secret's value (a plugin's granted
 * environment variable, an MCP server's `env` or `headers`, a serve token) cut out of every string
 * and key, however deep. Its hash is taken after the secrets are cut out, so no record, nor a
 * hash in it, holds a granted secret; a value under a credential-like key does enter the hash.
 */
import { hash as digest } from 'node:crypto';

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
  /**
   * What a record keeps of `value`: its `hash` and the JSON of `redact(value)`, serialized once.
   * A value with nothing to cut or hide (the common case) is checked in one pass that copies
   * nothing, and its JSON is both what is hashed and what is recorded.
   */
  prepare(value: unknown): { readonly hash: string; readonly json: string };
  /**
   * `prepare`, in two steps: what must be taken from `value` now, while it is as recorded, and
   * `finish`, which gives what `prepare(value)` gave then, called later (when the record's batch is
   * written). A value with nothing to cut is taken as its JSON (a string, which nothing can change
   * afterwards) and hashed in `finish`; any other is prepared whole now. `chars`: the JSON's length.
   */
  capture(value: unknown): {
    readonly chars: number;
    finish(): { readonly hash: string; readonly json: string };
  };
}

/** Keys whose sensitivity is remembered; the cache starts over beyond this. */
const MAX_KNOWN_KEYS = 4096;

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
  // Inputs repeat their keys call after call: each key's answer is worked out once.
  const known = new Map<string, boolean>();
  const sensitive = (key: string) => {
    let answer = known.get(key);
    if (answer === undefined) {
      const k = key.toLowerCase();
      answer = lowered.some((pattern) => k.includes(pattern));
      if (known.size >= MAX_KNOWN_KEYS) known.clear();
      known.set(key, answer);
    }
    return answer;
  };
  const holdsSecret = (input: string) => {
    for (const secret of values) if (input.includes(secret)) return true;
    return false;
  };
  /**
   * Whether `walk` would give back `value` unchanged, for both uses: no secret in a string or a
   * key, no credential-like key, nothing too deep, and only plain JSON data (plain objects and
   * arrays, no `__proto__` key), so `JSON.stringify(value)` is the JSON of either copy.
   */
  const clean = (value: unknown, depth: number): boolean => {
    if (typeof value === 'string') return !holdsSecret(value);
    if (value === null || typeof value !== 'object') return typeof value !== 'bigint';
    if (depth >= MAX_DEPTH) return false;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) if (!clean(value[i], depth + 1)) return false;
      return true;
    }
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return false;
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      if (key === '__proto__' || sensitive(key) || holdsSecret(key)) return false;
      if (!clean((value as Record<string, unknown>)[key], depth + 1)) return false;
    }
    return true;
  };
  // One-shot: no Hash object per record.
  const sha256 = (json: string) => `sha256:${digest('sha256', json, 'hex')}`;
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
  const hash = (value: unknown) => {
    let json: string;
    try {
      json = JSON.stringify(walk(value, 0, false)) ?? 'null';
    } catch {
      json = '"[not JSON]"';
    }
    return sha256(json);
  };
  const redact = (value: unknown) => walk(value, 0, true);
  const cut = (value: unknown) => ({ hash: hash(value), json: JSON.stringify(redact(value)) ?? 'null' });
  return {
    redact,
    hash,
    text,
    prepare(value) {
      if (clean(value, 0)) {
        const json = JSON.stringify(value) ?? 'null';
        return { hash: sha256(json), json };
      }
      return cut(value);
    },
    capture(value) {
      if (clean(value, 0)) {
        const json = JSON.stringify(value) ?? 'null';
        return { chars: json.length, finish: () => ({ hash: sha256(json), json }) };
      }
      const prepared = cut(value);
      return { chars: prepared.json.length, finish: () => prepared };
    },
  };
}
