/** The URL parser's record and its serializer, special schemes, character tests and percent-encoding (url.ts). */
import { utf8Encode } from './encoding.js';

export interface UrlRecord {
  scheme: string;
  username: string;
  password: string;
  host: string | null;
  port: number | null;
  /** A list of segments, or a string for an opaque path (`mailto:x`). */
  path: string[] | string;
  query: string | null;
  fragment: string | null;
}

export const SPECIAL: Record<string, number | null> = {
  ftp: 21,
  file: null,
  http: 80,
  https: 443,
  ws: 80,
  wss: 443,
};
export const isSpecial = (scheme: string) => Object.hasOwn(SPECIAL, scheme);

export const isAlpha = (c: string) => /^[A-Za-z]$/.test(c);
export const isDigit = (c: string) => c >= '0' && c <= '9';
export const isHex = (c: string) => /^[0-9A-Fa-f]$/.test(c);

type EncodeSet = (code: number) => boolean;
export const c0Set: EncodeSet = (c) => c < 0x20 || c > 0x7e;
export const fragmentSet: EncodeSet = (c) =>
  c0Set(c) || c === 0x20 || c === 0x22 || c === 0x3c || c === 0x3e || c === 0x60;
export const querySet: EncodeSet = (c) =>
  c0Set(c) || c === 0x20 || c === 0x22 || c === 0x23 || c === 0x3c || c === 0x3e;
export const specialQuerySet: EncodeSet = (c) => querySet(c) || c === 0x27;
// The WHATWG URL standard added U+005E (^) to the path set in 2025; Node 24 (Ada 3) follows it.
export const pathSet: EncodeSet = (c) =>
  querySet(c) || c === 0x3f || c === 0x5e || c === 0x60 || c === 0x7b || c === 0x7d;
export const userinfoSet: EncodeSet = (c) =>
  pathSet(c) ||
  c === 0x2f ||
  c === 0x3a ||
  c === 0x3b ||
  c === 0x3d ||
  c === 0x40 ||
  (c >= 0x5b && c <= 0x5d) ||
  c === 0x7c;
export const formSet: EncodeSet = (c) => !/[A-Za-z0-9*\-._]/.test(String.fromCharCode(c));

const hex2 = (b: number) => `%${b < 16 ? '0' : ''}${b.toString(16).toUpperCase()}`;

export function encodeCodePoint(char: string, set: EncodeSet): string {
  const code = char.codePointAt(0) as number;
  if (!set(code)) return char;
  let out = '';
  for (const b of utf8Encode(char)) out += hex2(b);
  return out;
}

export function encodeString(text: string, set: EncodeSet, spaceAsPlus = false): string {
  let out = '';
  for (const char of text) out += spaceAsPlus && char === ' ' ? '+' : encodeCodePoint(char, set);
  return out;
}

function percentDecodeBytes(text: string): Uint8Array {
  const bytes = utf8Encode(text);
  const out = new Uint8Array(bytes.length);
  let n = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i] as number;
    if (
      b === 0x25 &&
      i + 2 < bytes.length &&
      isHex(String.fromCharCode(bytes[i + 1] as number)) &&
      isHex(String.fromCharCode(bytes[i + 2] as number))
    ) {
      out[n++] = Number.parseInt(String.fromCharCode(bytes[i + 1] as number, bytes[i + 2] as number), 16);
      i += 2;
    } else out[n++] = b;
  }
  return out.subarray(0, n);
}

let utf8Decoder: { decode(b: Uint8Array): string } | undefined;
/** Set by the runtime when it installs the globals (its own TextDecoder). */
export function useDecoder(decoder: { decode(b: Uint8Array): string }): void {
  utf8Decoder = decoder;
}
export const percentDecode = (text: string) =>
  (utf8Decoder as { decode(b: Uint8Array): string }).decode(percentDecodeBytes(text));

export function serializePath(url: UrlRecord): string {
  if (typeof url.path === 'string') return url.path;
  let out = '';
  for (const segment of url.path) out += `/${segment}`;
  return out;
}

export function serialize(url: UrlRecord, excludeFragment = false): string {
  let out = `${url.scheme}:`;
  if (url.host !== null) {
    out += '//';
    out += userinfoOf(url);
    out += url.host;
    if (url.port !== null) out += `:${url.port}`;
  } else if (typeof url.path !== 'string' && url.path.length > 1 && url.path[0] === '') out += '/.';
  out += serializePath(url);
  if (url.query !== null) out += `?${url.query}`;
  if (!excludeFragment && url.fragment !== null) out += `#${url.fragment}`;
  return out;
}

/** `user:pass@`, `user@` or nothing: what stands before the host when the authority is written again. */
export function userinfoOf(u: UrlRecord): string {
  if (u.username === '' && u.password === '') return '';
  return `${u.username}${u.password !== '' ? `:${u.password}` : ''}@`;
}
