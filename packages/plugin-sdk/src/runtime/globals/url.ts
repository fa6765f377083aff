/**
 * `URL` and `URLSearchParams` in plain JS, after the WHATWG URL Standard's basic parser (no state
 * override: setters rebuild the URL and parse it again, and leave it unchanged when that fails).
 * Non-ASCII host names are lower-cased, NFC-normalized and Punycode-encoded; the full UTS #46
 * mapping tables are left out to keep the runtime small.
 */
import { utf8Encode } from './encoding.js';

interface UrlRecord {
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

const SPECIAL: Record<string, number | null> = {
  ftp: 21,
  file: null,
  http: 80,
  https: 443,
  ws: 80,
  wss: 443,
};
const isSpecial = (scheme: string) => Object.hasOwn(SPECIAL, scheme);

const isAlpha = (c: string) => /^[A-Za-z]$/.test(c);
const isDigit = (c: string) => c >= '0' && c <= '9';
const isHex = (c: string) => /^[0-9A-Fa-f]$/.test(c);

type EncodeSet = (code: number) => boolean;
const c0Set: EncodeSet = (c) => c < 0x20 || c > 0x7e;
const fragmentSet: EncodeSet = (c) =>
  c0Set(c) || c === 0x20 || c === 0x22 || c === 0x3c || c === 0x3e || c === 0x60;
const querySet: EncodeSet = (c) =>
  c0Set(c) || c === 0x20 || c === 0x22 || c === 0x23 || c === 0x3c || c === 0x3e;
const specialQuerySet: EncodeSet = (c) => querySet(c) || c === 0x27;
// The WHATWG URL standard added U+005E (^) to the path set in 2025; Node 24 (Ada 3) follows it.
const pathSet: EncodeSet = (c) =>
  querySet(c) || c === 0x3f || c === 0x5e || c === 0x60 || c === 0x7b || c === 0x7d;
const userinfoSet: EncodeSet = (c) =>
  pathSet(c) ||
  c === 0x2f ||
  c === 0x3a ||
  c === 0x3b ||
  c === 0x3d ||
  c === 0x40 ||
  (c >= 0x5b && c <= 0x5d) ||
  c === 0x7c;
const formSet: EncodeSet = (c) => !/[A-Za-z0-9*\-._]/.test(String.fromCharCode(c));

const hex2 = (b: number) => `%${b < 16 ? '0' : ''}${b.toString(16).toUpperCase()}`;

function encodeCodePoint(char: string, set: EncodeSet): string {
  const code = char.codePointAt(0) as number;
  if (!set(code)) return char;
  let out = '';
  for (const b of utf8Encode(char)) out += hex2(b);
  return out;
}

function encodeString(text: string, set: EncodeSet, spaceAsPlus = false): string {
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
const percentDecode = (text: string) =>
  (utf8Decoder as { decode(b: Uint8Array): string }).decode(percentDecodeBytes(text));

// ---- hosts --------------------------------------------------------------------------------------

const FORBIDDEN_HOST = /[\0\t\n\r #/:<>?@[\\\]^|]/;
/** Forbidden domain code points: the forbidden host ones, C0 controls, `%` and DEL. */
const forbiddenDomain = (domain: string) =>
  FORBIDDEN_HOST.test(domain) || /[%\x7f]/.test(domain) || [...domain].some((c) => c < ' ');

function parseIpv4Number(part: string): number | undefined {
  if (part === '') return undefined;
  let radix = 10;
  let text = part;
  if (/^0[xX]/.test(text)) {
    radix = 16;
    text = text.slice(2);
  } else if (text.length > 1 && text.startsWith('0')) {
    radix = 8;
    text = text.slice(1);
  }
  if (text === '') return 0;
  const valid = radix === 16 ? /^[0-9A-Fa-f]+$/ : radix === 8 ? /^[0-7]+$/ : /^[0-9]+$/;
  if (!valid.test(text)) return undefined;
  return Number.parseInt(text, radix);
}

function endsInNumber(host: string): boolean {
  const parts = host.split('.');
  if (parts[parts.length - 1] === '') {
    if (parts.length === 1) return false;
    parts.pop();
  }
  const last = parts[parts.length - 1] as string;
  return (last !== '' && /^[0-9]+$/.test(last)) || parseIpv4Number(last) !== undefined;
}

function parseIpv4(host: string): number | undefined {
  const parts = host.split('.');
  if (parts[parts.length - 1] === '' && parts.length > 1) parts.pop();
  if (parts.length > 4) return undefined;
  const numbers: number[] = [];
  for (const part of parts) {
    const n = parseIpv4Number(part);
    if (n === undefined) return undefined;
    numbers.push(n);
  }
  for (let i = 0; i < numbers.length - 1; i++) if ((numbers[i] as number) > 255) return undefined;
  const last = numbers[numbers.length - 1] as number;
  if (last >= 256 ** (5 - numbers.length)) return undefined;
  let address = last;
  for (let i = 0; i < numbers.length - 1; i++) address += (numbers[i] as number) * 256 ** (3 - i);
  return address;
}

const serializeIpv4 = (address: number) =>
  [address >>> 24, (address >>> 16) & 255, (address >>> 8) & 255, address & 255].join('.');

function parseIpv6(input: string): number[] | undefined {
  const address = [0, 0, 0, 0, 0, 0, 0, 0];
  let piece = 0;
  let compress: number | null = null;
  let p = 0;
  const c = (i = p) => input[i];
  if (c() === ':') {
    if (c(1) !== ':') return undefined;
    p += 2;
    piece += 1;
    compress = piece;
  }
  while (c() !== undefined) {
    if (piece === 8) return undefined;
    if (c() === ':') {
      if (compress !== null) return undefined;
      p++;
      piece++;
      compress = piece;
      continue;
    }
    let value = 0;
    let length = 0;
    while (length < 4 && c() !== undefined && isHex(c() as string)) {
      value = value * 16 + Number.parseInt(c() as string, 16);
      p++;
      length++;
    }
    if (c() === '.') {
      if (length === 0) return undefined;
      p -= length;
      if (piece > 6) return undefined;
      let seen = 0;
      while (c() !== undefined) {
        let ipv4Piece: number | null = null;
        if (seen > 0) {
          if (c() === '.' && seen < 4) p++;
          else return undefined;
        }
        if (c() === undefined || !isDigit(c() as string)) return undefined;
        while (c() !== undefined && isDigit(c() as string)) {
          const n = Number(c());
          if (ipv4Piece === null) ipv4Piece = n;
          else if (ipv4Piece === 0) return undefined;
          else ipv4Piece = ipv4Piece * 10 + n;
          if (ipv4Piece > 255) return undefined;
          p++;
        }
        address[piece] = (address[piece] as number) * 256 + (ipv4Piece as number);
        seen++;
        if (seen === 2 || seen === 4) piece++;
      }
      if (seen !== 4) return undefined;
      break;
    }
    if (c() === ':') {
      p++;
      if (c() === undefined) return undefined;
    } else if (c() !== undefined) return undefined;
    address[piece] = value;
    piece++;
  }
  if (compress !== null) {
    let swaps = piece - compress;
    piece = 7;
    while (piece !== 0 && swaps > 0) {
      const other = compress + swaps - 1;
      [address[piece], address[other]] = [address[other] as number, address[piece] as number];
      piece--;
      swaps--;
    }
  } else if (piece !== 8) return undefined;
  return address;
}

function serializeIpv6(address: number[]): string {
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (address[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && address[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  let out = '';
  let ignore0 = false;
  for (let i = 0; i < 8; i++) {
    if (ignore0 && address[i] === 0) continue;
    ignore0 = false;
    if (bestStart === i) {
      out += i === 0 ? '::' : ':';
      ignore0 = true;
      continue;
    }
    out += (address[i] as number).toString(16);
    if (i !== 7) out += ':';
  }
  return `[${out}]`;
}

/** Punycode (RFC 3492) of one label. */
function punycode(label: string): string {
  const input = Array.from(label, (ch) => ch.codePointAt(0) as number);
  const basic = input.filter((c) => c < 0x80);
  let out = String.fromCharCode(...basic);
  let handled = basic.length;
  if (handled > 0) out += '-';
  let n = 128;
  let delta = 0;
  let bias = 72;
  const digit = (d: number) => String.fromCharCode(d < 26 ? d + 97 : d + 22);
  const adapt = (d: number, points: number, first: boolean) => {
    let k = 0;
    let x = first ? Math.floor(d / 700) : d >> 1;
    x += Math.floor(x / points);
    while (x > 455) {
      x = Math.floor(x / 35);
      k += 36;
    }
    return k + Math.floor((36 * x) / (x + 38));
  };
  while (handled < input.length) {
    const m = Math.min(...input.filter((c) => c >= n));
    delta += (m - n) * (handled + 1);
    n = m;
    for (const c of input) {
      if (c < n) delta++;
      if (c === n) {
        let q = delta;
        for (let k = 36; ; k += 36) {
          const t = k <= bias ? 1 : k >= bias + 26 ? 26 : k - bias;
          if (q < t) break;
          out += digit(t + ((q - t) % (36 - t)));
          q = Math.floor((q - t) / (36 - t));
        }
        out += digit(q);
        bias = adapt(delta, handled + 1, handled === basic.length);
        delta = 0;
        handled++;
      }
    }
    delta++;
    n++;
  }
  return out;
}

function domainToAscii(domain: string): string | undefined {
  const lower = domain
    .normalize('NFC')
    .toLowerCase()
    .replace(/[\u3002\uff0e\uff61]/g, '.');
  if (!/[^\0-\x7f]/.test(lower)) return lower;
  return lower
    .split('.')
    .map((label) => (/[^\0-\x7f]/.test(label) ? `xn--${punycode(label)}` : label))
    .join('.');
}

function parseHost(input: string, special: boolean): string | undefined {
  if (input.startsWith('[')) {
    if (!input.endsWith(']')) return undefined;
    const address = parseIpv6(input.slice(1, -1));
    return address === undefined ? undefined : serializeIpv6(address);
  }
  if (!special) {
    if (FORBIDDEN_HOST.test(input)) return undefined;
    return encodeString(input, c0Set);
  }
  const ascii = domainToAscii(percentDecode(input));
  if (ascii === undefined || ascii === '' || forbiddenDomain(ascii)) return undefined;
  if (endsInNumber(ascii)) {
    const address = parseIpv4(ascii);
    return address === undefined ? undefined : serializeIpv4(address);
  }
  return ascii;
}

// ---- the basic URL parser -----------------------------------------------------------------------

const isWindowsLetter = (s: string, normalizedOnly = false) =>
  s.length === 2 && isAlpha(s[0] as string) && (s[1] === ':' || (!normalizedOnly && s[1] === '|'));

function startsWithWindowsLetter(cps: string[], p: number): boolean {
  if (cps.length - p < 2) return false;
  if (!isWindowsLetter((cps[p] as string) + (cps[p + 1] as string))) return false;
  if (cps.length - p === 2) return true;
  return ['/', '\\', '?', '#'].includes(cps[p + 2] as string);
}

function shortenPath(url: UrlRecord): void {
  const path = url.path as string[];
  if (url.scheme === 'file' && path.length === 1 && isWindowsLetter(path[0] as string, true)) return;
  path.pop();
}

const isSingleDot = (s: string) => s === '.' || s.toLowerCase() === '%2e';
const isDoubleDot = (s: string) => ['..', '.%2e', '%2e.', '%2e%2e'].includes(s.toLowerCase());

type State =
  | 'scheme-start'
  | 'scheme'
  | 'no-scheme'
  | 'special-relative-or-authority'
  | 'path-or-authority'
  | 'relative'
  | 'relative-slash'
  | 'special-authority-slashes'
  | 'special-authority-ignore-slashes'
  | 'authority'
  | 'host'
  | 'port'
  | 'file'
  | 'file-slash'
  | 'file-host'
  | 'path-start'
  | 'path'
  | 'opaque-path'
  | 'query'
  | 'fragment';

function basicParse(rawInput: string, base: UrlRecord | undefined): UrlRecord | undefined {
  const input = rawInput.replace(/^[\0-\x20]+|[\0-\x20]+$/g, '').replace(/[\t\n\r]/g, '');
  const cps = Array.from(input);
  const url: UrlRecord = {
    scheme: '',
    username: '',
    password: '',
    host: null,
    port: null,
    path: [],
    query: null,
    fragment: null,
  };
  let state: State = 'scheme-start';
  let buffer = '';
  let atSignSeen = false;
  let insideBrackets = false;
  let passwordTokenSeen = false;
  const segments = () => url.path as string[];
  for (let p = 0; p <= cps.length; p++) {
    const c = cps[p]; // undefined at EOF
    switch (state) {
      case 'scheme-start':
        if (c !== undefined && isAlpha(c)) {
          buffer += c.toLowerCase();
          state = 'scheme';
        } else {
          state = 'no-scheme';
          p--;
        }
        break;
      case 'scheme':
        if (c !== undefined && (isAlpha(c) || isDigit(c) || c === '+' || c === '-' || c === '.')) {
          buffer += c.toLowerCase();
        } else if (c === ':') {
          url.scheme = buffer;
          buffer = '';
          if (url.scheme === 'file') state = 'file';
          else if (isSpecial(url.scheme) && base !== undefined && base.scheme === url.scheme)
            state = 'special-relative-or-authority';
          else if (isSpecial(url.scheme)) state = 'special-authority-slashes';
          else if (cps[p + 1] === '/') {
            state = 'path-or-authority';
            p++;
          } else {
            url.path = '';
            state = 'opaque-path';
          }
        } else {
          buffer = '';
          state = 'no-scheme';
          p = -1;
        }
        break;
      case 'no-scheme':
        if (base === undefined || (typeof base.path === 'string' && c !== '#')) return undefined;
        if (typeof base.path === 'string' && c === '#') {
          url.scheme = base.scheme;
          url.path = base.path;
          url.query = base.query;
          url.fragment = '';
          state = 'fragment';
        } else if (base.scheme !== 'file') {
          state = 'relative';
          p--;
        } else {
          state = 'file';
          p--;
        }
        break;
      case 'special-relative-or-authority':
        if (c === '/' && cps[p + 1] === '/') {
          state = 'special-authority-ignore-slashes';
          p++;
        } else {
          state = 'relative';
          p--;
        }
        break;
      case 'path-or-authority':
        if (c === '/') state = 'authority';
        else {
          state = 'path';
          p--;
        }
        break;
      case 'relative': {
        const b = base as UrlRecord;
        url.scheme = b.scheme;
        if (c === '/') state = 'relative-slash';
        else if (isSpecial(url.scheme) && c === '\\') state = 'relative-slash';
        else {
          url.username = b.username;
          url.password = b.password;
          url.host = b.host;
          url.port = b.port;
          url.path = [...(b.path as string[])];
          url.query = b.query;
          if (c === '?') {
            url.query = '';
            state = 'query';
          } else if (c === '#') {
            url.fragment = '';
            state = 'fragment';
          } else if (c !== undefined) {
            url.query = null;
            shortenPath(url);
            state = 'path';
            p--;
          }
        }
        break;
      }
      case 'relative-slash': {
        const b = base as UrlRecord;
        if (isSpecial(url.scheme) && (c === '/' || c === '\\')) state = 'special-authority-ignore-slashes';
        else if (c === '/') state = 'authority';
        else {
          url.username = b.username;
          url.password = b.password;
          url.host = b.host;
          url.port = b.port;
          state = 'path';
          p--;
        }
        break;
      }
      case 'special-authority-slashes':
        if (c === '/' && cps[p + 1] === '/') {
          state = 'special-authority-ignore-slashes';
          p++;
        } else {
          state = 'special-authority-ignore-slashes';
          p--;
        }
        break;
      case 'special-authority-ignore-slashes':
        if (c !== '/' && c !== '\\') {
          state = 'authority';
          p--;
        }
        break;
      case 'authority':
        if (c === '@') {
          if (atSignSeen) buffer = `%40${buffer}`;
          atSignSeen = true;
          for (const ch of buffer) {
            if (ch === ':' && !passwordTokenSeen) {
              passwordTokenSeen = true;
              continue;
            }
            const encoded = encodeCodePoint(ch, userinfoSet);
            if (passwordTokenSeen) url.password += encoded;
            else url.username += encoded;
          }
          buffer = '';
        } else if (
          c === undefined ||
          c === '/' ||
          c === '?' ||
          c === '#' ||
          (isSpecial(url.scheme) && c === '\\')
        ) {
          if (atSignSeen && buffer === '') return undefined;
          p -= Array.from(buffer).length + 1;
          buffer = '';
          state = 'host';
        } else buffer += c;
        break;
      case 'host':
        if (c === ':' && !insideBrackets) {
          if (buffer === '') return undefined;
          const host = parseHost(buffer, isSpecial(url.scheme));
          if (host === undefined) return undefined;
          url.host = host;
          buffer = '';
          state = 'port';
        } else if (
          c === undefined ||
          c === '/' ||
          c === '?' ||
          c === '#' ||
          (isSpecial(url.scheme) && c === '\\')
        ) {
          p--;
          if (isSpecial(url.scheme) && buffer === '') return undefined;
          const host = parseHost(buffer, isSpecial(url.scheme));
          if (host === undefined) return undefined;
          url.host = host;
          buffer = '';
          state = 'path-start';
        } else {
          if (c === '[') insideBrackets = true;
          if (c === ']') insideBrackets = false;
          buffer += c;
        }
        break;
      case 'port':
        if (c !== undefined && isDigit(c)) buffer += c;
        else if (
          c === undefined ||
          c === '/' ||
          c === '?' ||
          c === '#' ||
          (isSpecial(url.scheme) && c === '\\')
        ) {
          if (buffer !== '') {
            const port = Number.parseInt(buffer, 10);
            if (port > 65535) return undefined;
            url.port = SPECIAL[url.scheme] === port ? null : port;
            buffer = '';
          }
          state = 'path-start';
          p--;
        } else return undefined;
        break;
      case 'file':
        url.scheme = 'file';
        url.host = '';
        if (c === '/' || c === '\\') state = 'file-slash';
        else if (base !== undefined && base.scheme === 'file') {
          url.host = base.host;
          url.path = [...(base.path as string[])];
          url.query = base.query;
          if (c === '?') {
            url.query = '';
            state = 'query';
          } else if (c === '#') {
            url.fragment = '';
            state = 'fragment';
          } else if (c !== undefined) {
            url.query = null;
            if (!startsWithWindowsLetter(cps, p)) shortenPath(url);
            else url.path = [];
            state = 'path';
            p--;
          }
        } else {
          state = 'path';
          p--;
        }
        break;
      case 'file-slash':
        if (c === '/' || c === '\\') state = 'file-host';
        else {
          if (base !== undefined && base.scheme === 'file') {
            url.host = base.host;
            const first = (base.path as string[])[0];
            if (!startsWithWindowsLetter(cps, p) && first !== undefined && isWindowsLetter(first, true))
              segments().push(first);
          }
          state = 'path';
          p--;
        }
        break;
      case 'file-host':
        if (c === undefined || c === '/' || c === '\\' || c === '?' || c === '#') {
          p--;
          if (isWindowsLetter(buffer)) state = 'path';
          else if (buffer === '') {
            url.host = '';
            state = 'path-start';
          } else {
            let host = parseHost(buffer, true);
            if (host === undefined) return undefined;
            if (host === 'localhost') host = '';
            url.host = host;
            buffer = '';
            state = 'path-start';
          }
        } else buffer += c;
        break;
      case 'path-start':
        if (isSpecial(url.scheme)) {
          state = 'path';
          if (c !== '/' && c !== '\\') p--;
        } else if (c === '?') {
          url.query = '';
          state = 'query';
        } else if (c === '#') {
          url.fragment = '';
          state = 'fragment';
        } else if (c !== undefined) {
          state = 'path';
          if (c !== '/') p--;
        }
        break;
      case 'path':
        if (c === undefined || c === '/' || (isSpecial(url.scheme) && c === '\\') || c === '?' || c === '#') {
          const slash = c === '/' || (isSpecial(url.scheme) && c === '\\');
          if (isDoubleDot(buffer)) {
            shortenPath(url);
            if (!slash) segments().push('');
          } else if (isSingleDot(buffer) && !slash) segments().push('');
          else if (!isSingleDot(buffer)) {
            if (url.scheme === 'file' && segments().length === 0 && isWindowsLetter(buffer)) {
              buffer = `${buffer[0]}:`;
            }
            segments().push(buffer);
          }
          buffer = '';
          if (c === '?') {
            url.query = '';
            state = 'query';
          }
          if (c === '#') {
            url.fragment = '';
            state = 'fragment';
          }
        } else buffer += encodeCodePoint(c, pathSet);
        break;
      case 'opaque-path':
        if (c === '?') {
          url.query = '';
          state = 'query';
        } else if (c === '#') {
          url.fragment = '';
          state = 'fragment';
        } else if (c !== undefined) url.path = (url.path as string) + encodeCodePoint(c, c0Set);
        break;
      case 'query':
        if (c === undefined || c === '#') {
          url.query =
            (url.query ?? '') + encodeString(buffer, isSpecial(url.scheme) ? specialQuerySet : querySet);
          buffer = '';
          if (c === '#') {
            url.fragment = '';
            state = 'fragment';
          }
        } else buffer += c;
        break;
      case 'fragment':
        if (c !== undefined) url.fragment = (url.fragment ?? '') + encodeCodePoint(c, fragmentSet);
        break;
    }
  }
  return url;
}

function serializePath(url: UrlRecord): string {
  if (typeof url.path === 'string') return url.path;
  let out = '';
  for (const segment of url.path) out += `/${segment}`;
  return out;
}

function serialize(url: UrlRecord, excludeFragment = false): string {
  let out = `${url.scheme}:`;
  if (url.host !== null) {
    out += '//';
    if (url.username !== '' || url.password !== '') {
      out += url.username;
      if (url.password !== '') out += `:${url.password}`;
      out += '@';
    }
    out += url.host;
    if (url.port !== null) out += `:${url.port}`;
  } else if (typeof url.path !== 'string' && url.path.length > 1 && url.path[0] === '') out += '/.';
  out += serializePath(url);
  if (url.query !== null) out += `?${url.query}`;
  if (!excludeFragment && url.fragment !== null) out += `#${url.fragment}`;
  return out;
}

// ---- URLSearchParams ----------------------------------------------------------------------------

function parseForm(text: string): [string, string][] {
  const out: [string, string][] = [];
  for (const part of text.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const name = eq === -1 ? part : part.slice(0, eq);
    const value = eq === -1 ? '' : part.slice(eq + 1);
    out.push([percentDecode(name.replace(/\+/g, ' ')), percentDecode(value.replace(/\+/g, ' '))]);
  }
  return out;
}

/** The text with lone surrogates replaced by U+FFFD. */
const toUSVString = (value: unknown) =>
  String(value).replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');

export class URLSearchParams {
  #list: [string, string][] = [];
  /** The URL whose query this is, updated on every change. */
  #url: URL | undefined;

  constructor(init?: unknown) {
    if (init === undefined || init === null) return;
    if (typeof init === 'object' || typeof init === 'function') {
      const iterator = (init as { [Symbol.iterator]?: unknown })[Symbol.iterator];
      if (typeof iterator === 'function') {
        for (const pair of init as Iterable<unknown>) {
          const items = [...(pair as Iterable<unknown>)];
          if (items.length !== 2) throw new TypeError('URLSearchParams: each pair must have exactly 2 items');
          this.#list.push([toUSVString(items[0]), toUSVString(items[1])]);
        }
      } else {
        for (const key of Object.keys(init)) {
          this.#list.push([toUSVString(key), toUSVString((init as Record<string, unknown>)[key])]);
        }
      }
      return;
    }
    const text = toUSVString(init);
    this.#list = parseForm(text.startsWith('?') ? text.slice(1) : text);
  }

  /** @internal Binds to a URL (its `searchParams`). */
  static attach(params: URLSearchParams, url: URL, query: string | null): void {
    params.#url = url;
    params.#list = query === null ? [] : parseForm(query);
  }

  static reset(params: URLSearchParams, query: string | null): void {
    params.#list = query === null ? [] : parseForm(query);
  }

  #update(): void {
    if (this.#url === undefined) return;
    const text = this.toString();
    URL.setQuery(this.#url, text === '' ? null : text);
  }

  get size(): number {
    return this.#list.length;
  }
  append(name: string, value: string): void {
    this.#list.push([toUSVString(name), toUSVString(value)]);
    this.#update();
  }
  delete(name: string, value?: string): void {
    const n = toUSVString(name);
    const v = value === undefined ? undefined : toUSVString(value);
    this.#list = this.#list.filter(([k, val]) => !(k === n && (v === undefined || val === v)));
    this.#update();
  }
  get(name: string): string | null {
    const n = toUSVString(name);
    const found = this.#list.find(([k]) => k === n);
    return found === undefined ? null : found[1];
  }
  getAll(name: string): string[] {
    const n = toUSVString(name);
    return this.#list.filter(([k]) => k === n).map(([, v]) => v);
  }
  has(name: string, value?: string): boolean {
    const n = toUSVString(name);
    const v = value === undefined ? undefined : toUSVString(value);
    return this.#list.some(([k, val]) => k === n && (v === undefined || val === v));
  }
  set(name: string, value: string): void {
    const n = toUSVString(name);
    const v = toUSVString(value);
    const index = this.#list.findIndex(([k]) => k === n);
    if (index === -1) this.#list.push([n, v]);
    else {
      this.#list[index] = [n, v];
      this.#list = this.#list.filter(([k], i) => i <= index || k !== n);
    }
    this.#update();
  }
  sort(): void {
    const codeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    this.#list = this.#list
      .map((pair, i) => [pair, i] as const)
      .sort((a, b) => codeUnits(a[0][0], b[0][0]) || a[1] - b[1])
      .map(([pair]) => pair);
    this.#update();
  }
  forEach(callback: (value: string, name: string, params: URLSearchParams) => void, thisArg?: unknown): void {
    for (const [k, v] of [...this.#list]) callback.call(thisArg, v, k, this);
  }
  *entries(): IterableIterator<[string, string]> {
    for (const [k, v] of [...this.#list]) yield [k, v];
  }
  *keys(): IterableIterator<string> {
    for (const [k] of [...this.#list]) yield k;
  }
  *values(): IterableIterator<string> {
    for (const [, v] of [...this.#list]) yield v;
  }
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
  toString(): string {
    return this.#list
      .map(([k, v]) => `${encodeString(k, formSet, true)}=${encodeString(v, formSet, true)}`)
      .join('&');
  }
  get [Symbol.toStringTag](): string {
    return 'URLSearchParams';
  }
}

// ---- URL ----------------------------------------------------------------------------------------

function parseOrThrow(input: unknown, base?: unknown): UrlRecord {
  let baseRecord: UrlRecord | undefined;
  if (base !== undefined) {
    baseRecord = basicParse(String(base), undefined);
    if (baseRecord === undefined) throw new TypeError(`Invalid base URL: ${JSON.stringify(String(base))}`);
  }
  const record = basicParse(String(input), baseRecord);
  if (record === undefined) throw new TypeError(`Invalid URL: ${JSON.stringify(String(input))}`);
  return record;
}

export class URL {
  #url: UrlRecord;
  readonly #params = new URLSearchParams();

  constructor(input: unknown, base?: unknown) {
    this.#url = parseOrThrow(input, base);
    URLSearchParams.attach(this.#params, this, this.#url.query);
  }

  static canParse(input: unknown, base?: unknown): boolean {
    try {
      parseOrThrow(input, base);
      return true;
    } catch {
      return false;
    }
  }

  static parse(input: unknown, base?: unknown): URL | null {
    try {
      return new URL(input, base);
    } catch {
      return null;
    }
  }

  /** @internal From `searchParams`: the query changed. */
  static setQuery(url: URL, query: string | null): void {
    url.#url.query = query;
  }

  /** The URL as text with one part replaced, re-parsed; `part` is written as the serializer would. */
  #withPart(part: 'scheme' | 'authority' | 'path', value: string): void {
    const u = this.#url;
    if (part === 'path' && typeof u.path === 'string') return;
    const scheme = part === 'scheme' ? value : u.scheme;
    const userinfo =
      u.username !== '' || u.password !== ''
        ? `${u.username}${u.password !== '' ? `:${u.password}` : ''}@`
        : '';
    const authority =
      part === 'authority'
        ? value
        : u.host === null
          ? null
          : `${userinfo}${u.host}${u.port === null ? '' : `:${u.port}`}`;
    let path = part === 'path' ? value : serializePath(u);
    if (part === 'path' && !path.startsWith('/') && authority !== null) path = `/${path}`;
    const text = `${scheme}:${authority === null ? '' : `//${authority}`}${path}${u.query === null ? '' : `?${u.query}`}${u.fragment === null ? '' : `#${u.fragment}`}`;
    const record = basicParse(text, undefined);
    if (record === undefined) return;
    if (part === 'scheme' && isSpecial(u.scheme) !== isSpecial(record.scheme)) return;
    this.#url = record;
  }

  get href(): string {
    return serialize(this.#url);
  }
  set href(value: string) {
    this.#url = parseOrThrow(value);
    URLSearchParams.reset(this.#params, this.#url.query);
  }
  get origin(): string {
    const u = this.#url;
    if (u.scheme === 'blob' && typeof u.path === 'string') {
      const inner = URL.parse(u.path);
      return inner !== null && (inner.protocol === 'http:' || inner.protocol === 'https:')
        ? inner.origin
        : 'null';
    }
    if (!isSpecial(u.scheme) || u.scheme === 'file') return 'null';
    return `${u.scheme}://${u.host}${u.port === null ? '' : `:${u.port}`}`;
  }
  get protocol(): string {
    return `${this.#url.scheme}:`;
  }
  set protocol(value: string) {
    const scheme = String(value).replace(/:.*$/s, '').toLowerCase();
    if (!/^[a-z][a-z0-9+.-]*$/.test(scheme)) return;
    this.#withPart('scheme', scheme);
  }
  get username(): string {
    return this.#url.username;
  }
  set username(value: string) {
    const u = this.#url;
    if (u.host === null || u.host === '' || u.scheme === 'file') return;
    u.username = encodeString(String(value), userinfoSet);
  }
  get password(): string {
    return this.#url.password;
  }
  set password(value: string) {
    const u = this.#url;
    if (u.host === null || u.host === '' || u.scheme === 'file') return;
    u.password = encodeString(String(value), userinfoSet);
  }
  get host(): string {
    const u = this.#url;
    if (u.host === null) return '';
    return u.port === null ? u.host : `${u.host}:${u.port}`;
  }
  set host(value: string) {
    const u = this.#url;
    if (typeof u.path === 'string') return;
    const userinfo =
      u.username !== '' || u.password !== ''
        ? `${u.username}${u.password !== '' ? `:${u.password}` : ''}@`
        : '';
    this.#withPart('authority', `${userinfo}${String(value)}`);
  }
  get hostname(): string {
    return this.#url.host ?? '';
  }
  set hostname(value: string) {
    const u = this.#url;
    if (typeof u.path === 'string') return;
    const userinfo =
      u.username !== '' || u.password !== ''
        ? `${u.username}${u.password !== '' ? `:${u.password}` : ''}@`
        : '';
    const text = String(value).replace(/[:/?#].*$/s, '');
    this.#withPart('authority', `${userinfo}${text}${u.port === null ? '' : `:${u.port}`}`);
  }
  get port(): string {
    return this.#url.port === null ? '' : String(this.#url.port);
  }
  set port(value: string) {
    const u = this.#url;
    if (u.host === null || u.host === '' || u.scheme === 'file') return;
    const digits = /^[0-9]*/.exec(String(value))?.[0] ?? '';
    if (String(value) === '') u.port = null;
    else if (digits !== '') {
      const port = Number.parseInt(digits, 10);
      if (port <= 65535) u.port = SPECIAL[u.scheme] === port ? null : port;
    }
  }
  get pathname(): string {
    return serializePath(this.#url);
  }
  set pathname(value: string) {
    this.#withPart(
      'path',
      String(value).replace(/[?#]/g, (c) => (c === '?' ? '%3F' : '%23')),
    );
  }
  get search(): string {
    const q = this.#url.query;
    return q === null || q === '' ? '' : `?${q}`;
  }
  set search(value: string) {
    const text = String(value);
    const input = text.startsWith('?') ? text.slice(1) : text;
    this.#url.query =
      text === '' ? null : encodeString(input, isSpecial(this.#url.scheme) ? specialQuerySet : querySet);
    URLSearchParams.reset(this.#params, this.#url.query);
  }
  get searchParams(): URLSearchParams {
    return this.#params;
  }
  get hash(): string {
    const f = this.#url.fragment;
    return f === null || f === '' ? '' : `#${f}`;
  }
  set hash(value: string) {
    const text = String(value);
    if (text === '') {
      this.#url.fragment = null;
      return;
    }
    this.#url.fragment = encodeString(text.startsWith('#') ? text.slice(1) : text, fragmentSet);
  }
  toString(): string {
    return this.href;
  }
  toJSON(): string {
    return this.href;
  }
  get [Symbol.toStringTag](): string {
    return 'URL';
  }
}
