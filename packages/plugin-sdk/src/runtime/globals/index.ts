/**
 * The web-standard globals of a plugin isolate, installed once when the runtime starts, before
 * any plugin code: `console`, timers, `fetch`, `Headers`, `URL`, `URLSearchParams`,
 * `TextEncoder`/`TextDecoder`, `atob`/`btoa`, `structuredClone`, `crypto`, `queueMicrotask`.
 *
 * All of them are plain JS of the isolate's own realm: no host object is handed in. What reaches
 * the host goes through the runtime's existing bridge — `console` is `ctx.log`, `fetch` is the
 * `fetch` capability with its grant checks, timers are `sleep` capability requests, one per
 * wake-up of a call's timers (so timer callbacks run inside the isolate's entry for that request,
 * under the call's limits, and a timer pending when its call ends is dropped with the call's other
 * requests), and randomness comes in batches from the host's CSPRNG.
 */

import { structuredClone } from './clone.js';
import { makeConsole, show } from './console.js';
import { atob, btoa, decodeBase64, TextDecoder, TextEncoder } from './encoding.js';
import type { GlobalsHost } from './host.js';
import { makeTimers } from './timers.js';
import { URL, URLSearchParams, useDecoder } from './url.js';
import { type FetchReplyData, Headers, Response } from './web.js';

export { explainMissingGlobal } from './absent.js';
export type { GlobalsHost } from './host.js';
export { clearCallTimers, MAX_TIMERS, MIN_INTERVAL_MS } from './timers.js';

const ENTROPY_REFILL = 'entropy';

function makeCrypto(host: GlobalsHost) {
  let pool: Uint8Array = new Uint8Array(0);
  let position = 0;
  /** Fills `target` with host randomness; every byte is used once and wiped from the pool. */
  const fill = (target: Uint8Array) => {
    let done = 0;
    while (done < target.length) {
      if (position >= pool.length) {
        pool = decodeBase64(host.entropy(), ENTROPY_REFILL);
        position = 0;
        if (pool.length === 0) throw new Error('crypto: the host gave no randomness');
      }
      const n = Math.min(target.length - done, pool.length - position);
      target.set(pool.subarray(position, position + n), done);
      pool.fill(0, position, position + n);
      position += n;
      done += n;
    }
  };
  const integerArray = /^(?:Int8|Uint8|Uint8Clamped|Int16|Uint16|Int32|Uint32|BigInt64|BigUint64)Array$/;
  const crypto = {
    getRandomValues<T extends ArrayBufferView | null>(array: T): T {
      if (
        !ArrayBuffer.isView(array) ||
        !integerArray.test(Object.prototype.toString.call(array).slice(8, -1))
      ) {
        const error = new TypeError('crypto.getRandomValues needs an integer typed array');
        error.name = 'TypeMismatchError';
        throw error;
      }
      if (array.byteLength > 65536) {
        const error = new Error(
          `crypto.getRandomValues: ${array.byteLength} bytes is over the limit of 65536 per call`,
        );
        error.name = 'QuotaExceededError';
        throw error;
      }
      fill(new Uint8Array(array.buffer, array.byteOffset, array.byteLength));
      return array;
    },
    randomUUID(): string {
      const b = new Uint8Array(16);
      fill(b);
      b[6] = ((b[6] as number) & 0x0f) | 0x40;
      b[8] = ((b[8] as number) & 0x3f) | 0x80;
      let hex = '';
      for (const byte of b) hex += (byte < 16 ? '0' : '') + byte.toString(16);
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    },
  };
  // Not enumerable: listing or printing `crypto` must not throw; only using `subtle` does.
  Object.defineProperty(crypto, 'subtle', {
    get(): never {
      throw new Error(
        'crypto.subtle is not available in plugins (crypto.getRandomValues and crypto.randomUUID are)',
      );
    },
    enumerable: false,
    configurable: true,
  });
  return crypto;
}

/** Text of a request body: `fetch` in plugins sends text, as `ctx.fetch` does. */
function bodyText(body: unknown, headers: Headers): string | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return body;
  if (body instanceof URLSearchParams) {
    if (!headers.has('content-type'))
      headers.set('content-type', 'application/x-www-form-urlencoded;charset=UTF-8');
    return body.toString();
  }
  if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(body);
    } catch {
      throw new TypeError('fetch in plugins sends text bodies: this body is not UTF-8 text');
    }
  }
  throw new TypeError(
    'fetch in plugins takes a string, URLSearchParams or UTF-8 bytes as body (use JSON.stringify for objects)',
  );
}

function makeFetch(host: GlobalsHost) {
  return function fetch(input: unknown, init?: Record<string, unknown>): Promise<Response> {
    return new Promise((resolve, reject) => {
      const callId = host.currentCall();
      if (callId === undefined) {
        throw new Error('fetch works only while a tool call runs (it is ctx.fetch, with its grants)');
      }
      const request = input as { url?: unknown; method?: unknown; headers?: unknown } | null;
      const url =
        typeof input === 'string'
          ? input
          : input instanceof URL
            ? input.href
            : typeof request?.url === 'string'
              ? request.url
              : String(input);
      const options = init ?? {};
      const signal = options.signal as { aborted?: boolean; reason?: unknown } | undefined;
      if (signal?.aborted === true) {
        const error = new Error('fetch was aborted before it started');
        error.name = 'AbortError';
        throw error;
      }
      const headers = new Headers(
        (options.headers ?? request?.headers) as Record<string, string> | undefined,
      );
      const body = bodyText(options.body, headers);
      const method = options.method ?? request?.method;
      const wire = {
        url,
        options: {
          ...(method === undefined ? {} : { method: String(method).toUpperCase() }),
          headers: Object.fromEntries(headers),
          ...(body === undefined ? {} : { body }),
        },
      };
      host.request(callId, 'fetch', wire, (raw) => resolve(new Response(raw as FetchReplyData)), reject);
    });
  };
}

function queueMicrotask(host: GlobalsHost) {
  const resolved = Promise.resolve();
  const then = Promise.prototype.then;
  return (fn: unknown) => {
    if (typeof fn !== 'function') throw new TypeError('queueMicrotask needs a function');
    const callId = host.currentCall();
    then.call(resolved, () => {
      try {
        fn();
      } catch (error) {
        host.log(callId, 'error', `uncaught error in a microtask: ${show(error)}`);
      }
    });
  };
}

/** Installs the globals on `global` (the isolate's `globalThis`). */
export function installGlobals(global: Record<string, unknown>, host: GlobalsHost): void {
  const decoder = new TextDecoder();
  useDecoder(decoder);
  const values: Record<string, unknown> = {
    console: makeConsole(host),
    ...makeTimers(host),
    fetch: makeFetch(host),
    Headers,
    Response,
    URL,
    URLSearchParams,
    TextEncoder,
    TextDecoder,
    atob,
    btoa,
    structuredClone,
    crypto: makeCrypto(host),
    queueMicrotask: queueMicrotask(host),
  };
  for (const name of Object.keys(values)) {
    // Writable and configurable as on the web: a plugin may shim or replace them in its own isolate.
    Object.defineProperty(global, name, {
      value: values[name],
      writable: true,
      enumerable: false,
      configurable: true,
    });
  }
}
