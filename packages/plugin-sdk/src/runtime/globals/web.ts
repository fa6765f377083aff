/**
 * `Headers` and the `Response` that the `fetch` global returns, over a reply of `ctx.fetch` (whose
 * body the host has already read, size-capped, as text).
 */
import { utf8Encode } from './encoding.js';

type HeadersInit = Headers | Record<string, string> | Iterable<readonly [string, string]>;

export class Headers {
  readonly #map = new Map<string, string>();

  constructor(init?: HeadersInit) {
    if (init === undefined || init === null) return;
    if (init instanceof Headers) {
      for (const [k, v] of init) this.append(k, v);
    } else if (typeof (init as { [Symbol.iterator]?: unknown })[Symbol.iterator] === 'function') {
      for (const pair of init as Iterable<readonly [string, string]>) {
        const items = [...pair];
        if (items.length !== 2) throw new TypeError('Headers: each header must be a [name, value] pair');
        this.append(String(items[0]), String(items[1]));
      }
    } else {
      for (const key of Object.keys(init)) this.append(key, String((init as Record<string, string>)[key]));
    }
  }

  append(name: string, value: string): void {
    const key = String(name).toLowerCase();
    const text = String(value).trim();
    const old = this.#map.get(key);
    this.#map.set(key, old === undefined ? text : `${old}, ${text}`);
  }
  delete(name: string): void {
    this.#map.delete(String(name).toLowerCase());
  }
  get(name: string): string | null {
    return this.#map.get(String(name).toLowerCase()) ?? null;
  }
  has(name: string): boolean {
    return this.#map.has(String(name).toLowerCase());
  }
  set(name: string, value: string): void {
    this.#map.set(String(name).toLowerCase(), String(value).trim());
  }
  forEach(callback: (value: string, name: string, headers: Headers) => void, thisArg?: unknown): void {
    for (const [k, v] of this) callback.call(thisArg, v, k, this);
  }
  *entries(): IterableIterator<[string, string]> {
    const keys = [...this.#map.keys()].sort();
    for (const k of keys) yield [k, this.#map.get(k) as string];
  }
  *keys(): IterableIterator<string> {
    for (const [k] of this.entries()) yield k;
  }
  *values(): IterableIterator<string> {
    for (const [, v] of this.entries()) yield v;
  }
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
  get [Symbol.toStringTag](): string {
    return 'Headers';
  }
}

/** What the host's `ctx.fetch` replies with. */
export interface FetchReplyData {
  readonly url: string;
  readonly status: number;
  readonly statusText: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

export class Response {
  readonly #data: FetchReplyData;
  readonly #headers: Headers;
  #used = false;

  constructor(data: FetchReplyData) {
    this.#data = data;
    this.#headers = new Headers(data.headers);
  }

  get url(): string {
    return this.#data.url;
  }
  get status(): number {
    return this.#data.status;
  }
  get statusText(): string {
    return this.#data.statusText;
  }
  get ok(): boolean {
    return this.#data.status >= 200 && this.#data.status < 300;
  }
  get redirected(): boolean {
    return false;
  }
  get type(): string {
    return 'basic';
  }
  get headers(): Headers {
    return this.#headers;
  }
  get bodyUsed(): boolean {
    return this.#used;
  }
  /** There is no stream in plugins: the body is already read; use text(), json() or arrayBuffer(). */
  get body(): null {
    return null;
  }

  #take(): Promise<string> {
    if (this.#used) return Promise.reject(new TypeError('Response body has already been used'));
    this.#used = true;
    return Promise.resolve(this.#data.body);
  }

  text(): Promise<string> {
    return this.#take();
  }
  json(): Promise<unknown> {
    return this.#take().then((text) => JSON.parse(text));
  }
  /** The body's UTF-8 bytes: `ctx.fetch` delivers text, so binary bodies do not survive. */
  arrayBuffer(): Promise<ArrayBuffer> {
    return this.#take().then((text) => utf8Encode(text).buffer as ArrayBuffer);
  }
  bytes(): Promise<Uint8Array> {
    return this.#take().then((text) => utf8Encode(text));
  }
  clone(): Response {
    if (this.#used) throw new TypeError('Response.clone: the body has already been used');
    return new Response(this.#data);
  }
  get [Symbol.toStringTag](): string {
    return 'Response';
  }
}
