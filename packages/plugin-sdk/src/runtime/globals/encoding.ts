/**
 * UTF-8 and base64 in plain JS for the isolate: `TextEncoder`, `TextDecoder` (UTF-8 only, as
 * the platform's own default), `atob` and `btoa`. No host object is involved.
 */

const fromCharCode = String.fromCharCode;

/** UTF-8 bytes of `text`; lone surrogates become U+FFFD, as `TextEncoder` does. */
export function utf8Encode(text: string): Uint8Array {
  const out = new Uint8Array(text.length * 3);
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdfff) {
      const next = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
        i++;
      } else {
        c = 0xfffd;
      }
    }
    if (c < 0x80) out[n++] = c;
    else if (c < 0x800) {
      out[n++] = 0xc0 | (c >> 6);
      out[n++] = 0x80 | (c & 63);
    } else if (c < 0x10000) {
      out[n++] = 0xe0 | (c >> 12);
      out[n++] = 0x80 | ((c >> 6) & 63);
      out[n++] = 0x80 | (c & 63);
    } else {
      out[n++] = 0xf0 | (c >> 18);
      out[n++] = 0x80 | ((c >> 12) & 63);
      out[n++] = 0x80 | ((c >> 6) & 63);
      out[n++] = 0x80 | (c & 63);
    }
  }
  return out.slice(0, n);
}

/**
 * Decodes `bytes[start, end)`; returns the text and where decoding stopped (an incomplete sequence
 * at the end is left for the next chunk when `stream`). Malformed input gives U+FFFD per maximal
 * subpart (the WHATWG decoder's rule), or throws when `fatal`.
 */
function utf8DecodeSpan(
  bytes: Uint8Array,
  stream: boolean,
  fatal: boolean,
): { text: string; consumed: number } {
  let text = '';
  let i = 0;
  const n = bytes.length;
  const bad = () => {
    if (fatal) throw new TypeError('The encoded data was not valid for encoding utf-8');
    text += '\ufffd';
  };
  while (i < n) {
    const b = bytes[i] as number;
    if (b < 0x80) {
      text += fromCharCode(b);
      i++;
      continue;
    }
    let need = 0;
    let lower = 0x80;
    let upper = 0xbf;
    let cp = 0;
    if (b >= 0xc2 && b <= 0xdf) {
      need = 1;
      cp = b & 0x1f;
    } else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      cp = b & 0xf;
      if (b === 0xe0) lower = 0xa0;
      if (b === 0xed) upper = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      cp = b & 0x7;
      if (b === 0xf0) lower = 0x90;
      if (b === 0xf4) upper = 0x8f;
    } else {
      bad();
      i++;
      continue;
    }
    let j = 1;
    for (; j <= need; j++) {
      if (i + j >= n) break;
      const next = bytes[i + j] as number;
      if (next < lower || next > upper) break;
      lower = 0x80;
      upper = 0xbf;
      cp = (cp << 6) | (next & 0x3f);
    }
    if (j > need) {
      text += cp < 0x10000 ? fromCharCode(cp) : fromCharCode(0xd7c0 + (cp >> 10), 0xdc00 + (cp & 0x3ff));
      i += need + 1;
    } else if (i + j >= n && stream) {
      return { text, consumed: i };
    } else {
      bad();
      i += j;
    }
  }
  return { text, consumed: i };
}

function bytesOf(input: unknown): Uint8Array {
  if (input === undefined) return new Uint8Array(0);
  if (input instanceof ArrayBuffer) return new Uint8Array(input);
  if (ArrayBuffer.isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  throw new TypeError('TextDecoder.decode needs an ArrayBuffer, a typed array or a DataView');
}

const UTF8_LABELS = [
  'utf-8',
  'utf8',
  'unicode-1-1-utf-8',
  'unicode11utf8',
  'unicode20utf8',
  'x-unicode20utf8',
];

export class TextEncoder {
  get encoding(): string {
    return 'utf-8';
  }

  encode(input = ''): Uint8Array {
    return utf8Encode(String(input));
  }

  encodeInto(input: string, destination: Uint8Array): { read: number; written: number } {
    const text = String(input);
    let read = 0;
    let written = 0;
    for (const char of text) {
      const bytes = utf8Encode(char);
      if (written + bytes.length > destination.length) break;
      destination.set(bytes, written);
      written += bytes.length;
      read += char.length;
    }
    return { read, written };
  }
}

export class TextDecoder {
  readonly #fatal: boolean;
  readonly #ignoreBOM: boolean;
  #pending: Uint8Array = new Uint8Array(0);
  /** Whether this stream's first character has been seen (a BOM is dropped only there). */
  #begun = false;

  constructor(label = 'utf-8', options: { fatal?: boolean; ignoreBOM?: boolean } = {}) {
    if (!UTF8_LABELS.includes(String(label).trim().toLowerCase())) {
      throw new RangeError(
        `TextDecoder: the encoding ${JSON.stringify(String(label))} is not supported in plugins (only utf-8)`,
      );
    }
    this.#fatal = options.fatal === true;
    this.#ignoreBOM = options.ignoreBOM === true;
  }

  get encoding(): string {
    return 'utf-8';
  }
  get fatal(): boolean {
    return this.#fatal;
  }
  get ignoreBOM(): boolean {
    return this.#ignoreBOM;
  }

  decode(input?: unknown, options: { stream?: boolean } = {}): string {
    const stream = options.stream === true;
    let bytes = bytesOf(input);
    if (this.#pending.length > 0) {
      const joined = new Uint8Array(this.#pending.length + bytes.length);
      joined.set(this.#pending);
      joined.set(bytes, this.#pending.length);
      bytes = joined;
    }
    let result: { text: string; consumed: number };
    try {
      result = utf8DecodeSpan(bytes, stream, this.#fatal);
    } catch (error) {
      this.#pending = new Uint8Array(0);
      this.#begun = false;
      throw error;
    }
    this.#pending = stream ? bytes.slice(result.consumed) : new Uint8Array(0);
    let text = result.text;
    if (!this.#begun && text.length > 0) {
      if (!this.#ignoreBOM && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      this.#begun = true;
    }
    if (!stream) this.#begun = false;
    return text;
  }
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DECODE = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DECODE[ALPHABET.charCodeAt(i)] = i;

function invalidCharacter(what: string): Error {
  const error = new Error(what);
  error.name = 'InvalidCharacterError';
  return error;
}

/** Base64 of bytes. */
export function encodeBase64(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const v = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8) | (bytes[i + 2] as number);
    out += `${ALPHABET[v >> 18]}${ALPHABET[(v >> 12) & 63]}${ALPHABET[(v >> 6) & 63]}${ALPHABET[v & 63]}`;
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const v = (bytes[i] as number) << 16;
    out += `${ALPHABET[v >> 18]}${ALPHABET[(v >> 12) & 63]}==`;
  } else if (rest === 2) {
    const v = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8);
    out += `${ALPHABET[v >> 18]}${ALPHABET[(v >> 12) & 63]}${ALPHABET[(v >> 6) & 63]}=`;
  }
  return out;
}

/** Bytes of base64 text, by the forgiving-base64 rules `atob` follows; throws on invalid input. */
export function decodeBase64(text: string, who = 'atob'): Uint8Array {
  let data = text.replace(/[\t\n\f\r ]/g, '');
  if (data.length % 4 === 0) data = data.replace(/={1,2}$/, '');
  if (data.length % 4 === 1 || /[^A-Za-z0-9+/]/.test(data)) {
    throw invalidCharacter(`${who}: the string to be decoded is not correctly encoded base64`);
  }
  const out = new Uint8Array(Math.floor((data.length * 3) / 4));
  let buffer = 0;
  let bits = 0;
  let n = 0;
  for (let i = 0; i < data.length; i++) {
    buffer = (buffer << 6) | (DECODE[data.charCodeAt(i)] as number);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[n++] = (buffer >> bits) & 0xff;
    }
  }
  return out.subarray(0, n);
}

export function btoa(...args: unknown[]): string {
  if (args.length === 0) throw new TypeError('btoa needs 1 argument');
  const text = String(args[0]);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c > 0xff) {
      throw invalidCharacter(
        'btoa: the string contains characters outside Latin-1; encode it first: btoa(String.fromCharCode(...new TextEncoder().encode(text)))',
      );
    }
    bytes[i] = c;
  }
  return encodeBase64(bytes);
}

export function atob(...args: unknown[]): string {
  if (args.length === 0) throw new TypeError('atob needs 1 argument');
  const bytes = decodeBase64(String(args[0]));
  let out = '';
  for (let i = 0; i < bytes.length; i += 4096) {
    out += fromCharCode(...bytes.subarray(i, i + 4096));
  }
  return out;
}
