/**
 * The global environment of a toolhost plugin: the ECMAScript library (use `lib: ["ES2022"]`)
 * plus exactly the web-standard globals the sandbox provides — no Node globals (`process`,
 * `require`, `Buffer`, `setImmediate`, …) and no DOM. Point a plugin's tsconfig at it with
 * `"types": ["@toolhost/plugin-sdk/env"]`, so the editor flags what the sandbox does not have.
 *
 * Differences from the web, by design:
 * - timers belong to the tool call that set them and are cleared when it ends; at load (module
 *   top level) they throw;
 * - `fetch` is `ctx.fetch`: the hosts in `permissions.net` that config grants; request and
 *   response bodies are text (`arrayBuffer()` gives the body's UTF-8 bytes); no streams;
 * - `console.*` goes to the call's `ctx.log`;
 * - `TextDecoder` knows UTF-8 only; `crypto` has `getRandomValues` and `randomUUID`, no `subtle`.
 */

export {};

declare global {
  interface Console {
    log(...data: unknown[]): void;
    info(...data: unknown[]): void;
    debug(...data: unknown[]): void;
    trace(...data: unknown[]): void;
    warn(...data: unknown[]): void;
    error(...data: unknown[]): void;
    dir(item?: unknown): void;
    table(data?: unknown): void;
    assert(condition?: boolean, ...data: unknown[]): void;
    count(label?: string): void;
    countReset(label?: string): void;
    time(label?: string): void;
    timeLog(label?: string, ...data: unknown[]): void;
    timeEnd(label?: string): void;
    group(...data: unknown[]): void;
    groupCollapsed(...data: unknown[]): void;
    groupEnd(): void;
  }
  var console: Console;

  function setTimeout<A extends unknown[]>(
    handler: (...args: A) => void,
    timeout?: number,
    ...args: A
  ): number;
  function clearTimeout(id: number | undefined): void;
  function setInterval<A extends unknown[]>(
    handler: (...args: A) => void,
    timeout?: number,
    ...args: A
  ): number;
  function clearInterval(id: number | undefined): void;
  function queueMicrotask(callback: () => void): void;

  function structuredClone<T>(value: T, options?: { transfer?: readonly [] }): T;
  function atob(data: string): string;
  function btoa(data: string): string;

  interface Crypto {
    getRandomValues<
      T extends
        | Int8Array
        | Uint8Array
        | Uint8ClampedArray
        | Int16Array
        | Uint16Array
        | Int32Array
        | Uint32Array
        | BigInt64Array
        | BigUint64Array,
    >(array: T): T;
    randomUUID(): `${string}-${string}-${string}-${string}-${string}`;
  }
  var crypto: Crypto;

  interface TextEncoderEncodeIntoResult {
    read: number;
    written: number;
  }
  class TextEncoder {
    readonly encoding: 'utf-8';
    encode(input?: string): Uint8Array;
    encodeInto(source: string, destination: Uint8Array): TextEncoderEncodeIntoResult;
  }
  class TextDecoder {
    constructor(label?: 'utf-8' | 'utf8', options?: { fatal?: boolean; ignoreBOM?: boolean });
    readonly encoding: 'utf-8';
    readonly fatal: boolean;
    readonly ignoreBOM: boolean;
    decode(input?: ArrayBuffer | ArrayBufferView, options?: { stream?: boolean }): string;
  }

  class URLSearchParams implements Iterable<[string, string]> {
    constructor(
      init?: string | Record<string, string> | Iterable<readonly [string, string]> | URLSearchParams,
    );
    readonly size: number;
    append(name: string, value: string): void;
    delete(name: string, value?: string): void;
    get(name: string): string | null;
    getAll(name: string): string[];
    has(name: string, value?: string): boolean;
    set(name: string, value: string): void;
    sort(): void;
    forEach(callback: (value: string, key: string, parent: URLSearchParams) => void, thisArg?: unknown): void;
    entries(): IterableIterator<[string, string]>;
    keys(): IterableIterator<string>;
    values(): IterableIterator<string>;
    [Symbol.iterator](): IterableIterator<[string, string]>;
    toString(): string;
  }

  class URL {
    constructor(url: string | URL, base?: string | URL);
    static canParse(url: string | URL, base?: string | URL): boolean;
    static parse(url: string | URL, base?: string | URL): URL | null;
    href: string;
    readonly origin: string;
    protocol: string;
    username: string;
    password: string;
    host: string;
    hostname: string;
    port: string;
    pathname: string;
    search: string;
    readonly searchParams: URLSearchParams;
    hash: string;
    toString(): string;
    toJSON(): string;
  }

  type HeadersInit = Headers | Record<string, string> | Iterable<readonly [string, string]>;
  class Headers implements Iterable<[string, string]> {
    constructor(init?: HeadersInit);
    append(name: string, value: string): void;
    delete(name: string): void;
    get(name: string): string | null;
    has(name: string): boolean;
    set(name: string, value: string): void;
    forEach(callback: (value: string, key: string, parent: Headers) => void, thisArg?: unknown): void;
    entries(): IterableIterator<[string, string]>;
    keys(): IterableIterator<string>;
    values(): IterableIterator<string>;
    [Symbol.iterator](): IterableIterator<[string, string]>;
  }

  /** A response of `fetch`: the body is already read (size-capped) on the host, as text. */
  interface Response {
    readonly url: string;
    readonly status: number;
    readonly statusText: string;
    readonly ok: boolean;
    readonly redirected: boolean;
    readonly type: string;
    readonly headers: Headers;
    readonly bodyUsed: boolean;
    /** Always null: there are no streams in plugins. */
    readonly body: null;
    text(): Promise<string>;
    json(): Promise<unknown>;
    /** The body's UTF-8 bytes (bodies travel as text). */
    arrayBuffer(): Promise<ArrayBuffer>;
    bytes(): Promise<Uint8Array>;
    clone(): Response;
  }

  interface RequestInit {
    method?: string;
    headers?: HeadersInit;
    /** Text, form parameters or UTF-8 bytes: bodies travel as text. */
    body?: string | URLSearchParams | ArrayBuffer | ArrayBufferView | null;
    /** Checked before the request starts; a request under way ends with its call. */
    signal?: { readonly aborted: boolean } | null;
  }

  /** `ctx.fetch` of the running call: only hosts in `permissions.net` that config grants. */
  function fetch(input: string | URL | { readonly url: string }, init?: RequestInit): Promise<Response>;
}
