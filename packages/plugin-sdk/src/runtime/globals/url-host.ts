/** Host parsing of the URL Standard (url-parse.ts): domains (Punycode), IPv4, IPv6, opaque hosts. */
import { c0Set, encodeString, isDigit, isHex, percentDecode } from './url-parts.js';

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

export function parseHost(input: string, special: boolean): string | undefined {
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
