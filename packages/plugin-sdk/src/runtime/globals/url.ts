/**
 * `URL` and `URLSearchParams` in plain JS, after the WHATWG URL Standard's basic parser (no state
 * override: setters rebuild the URL and parse it again, and leave it unchanged when that fails).
 * Non-ASCII host names are lower-cased, NFC-normalized and Punycode-encoded; the full UTS #46
 * mapping tables are left out to keep the runtime small.
 */

import { basicParse } from './url-parse.js';
import {
  encodeString,
  formSet,
  fragmentSet,
  isSpecial,
  percentDecode,
  querySet,
  SPECIAL,
  serialize,
  serializePath,
  specialQuerySet,
  type UrlRecord,
  userinfoOf,
  userinfoSet,
} from './url-parts.js';

export { useDecoder } from './url-parts.js';

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
    const userinfo = userinfoOf(u);
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
    this.#setCredential('username', value);
  }
  get password(): string {
    return this.#url.password;
  }
  set password(value: string) {
    this.#setCredential('password', value);
  }
  /** A URL without a host, or a file URL, cannot have credentials. */
  #setCredential(field: 'username' | 'password', value: string): void {
    const u = this.#url;
    if (u.host === null || u.host === '' || u.scheme === 'file') return;
    u[field] = encodeString(String(value), userinfoSet);
  }
  get host(): string {
    const u = this.#url;
    if (u.host === null) return '';
    return u.port === null ? u.host : `${u.host}:${u.port}`;
  }
  set host(value: string) {
    const u = this.#url;
    if (typeof u.path === 'string') return;
    const userinfo = userinfoOf(u);
    this.#withPart('authority', `${userinfo}${String(value)}`);
  }
  get hostname(): string {
    return this.#url.host ?? '';
  }
  set hostname(value: string) {
    const u = this.#url;
    if (typeof u.path === 'string') return;
    const userinfo = userinfoOf(u);
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
