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
import { atob, btoa, decodeBase64, TextDecoder, TextEncoder } from './encoding.js';
import { URL, URLSearchParams, useDecoder } from './url.js';
import { type FetchReplyData, Headers, Response } from './web.js';

export { explainMissingGlobal } from './absent.js';

/** What the runtime lends the globals. */
export interface GlobalsHost {
  /** The call the code now running belongs to, while that call is running. */
  currentCall(): string | undefined;
  /** Starts a capability request of `callId`; neither callback runs once the call has ended. */
  request(
    callId: string,
    capability: string,
    args: unknown,
    resolve: (value: unknown) => void,
    reject: (error: Error) => void,
  ): void;
  /** A log line of `callId`, or of no call (undefined). */
  log(callId: string | undefined, level: string, message: string): void;
  /**
   * Whether `callId` may log one more line (checked before a line is formatted); false counts the
   * line as dropped (the call's log caps).
   */
  logRoom(callId: string): boolean;
  /** Fresh random bytes from the host, base64. */
  entropy(): string;
  /** Whether `callId` is still running. */
  running(callId: string): boolean;
}

/** Live timers (per isolate) beyond which `setTimeout`/`setInterval` throw. */
export const MAX_TIMERS = 1000;
/** The longest delay a timer takes (a larger one fires at this), as in browsers and Node. */
const MAX_DELAY_MS = 2_147_483_647;
/** The shortest wait between two runs of an interval, as browsers clamp nested timers. */
export const MIN_INTERVAL_MS = 4;

interface Timer {
  readonly callId: string;
  readonly fn: (...args: unknown[]) => unknown;
  readonly args: unknown[];
  readonly ms: number;
  readonly repeat: boolean;
  /** When it is next due, by the isolate's clock. */
  due: number;
}

const timers = new Map<number, Timer>();
/** The wake-ups each call has asked the host for and not yet had, by when they are due. */
const wakes = new Map<string, Set<number>>();
let nextTimer = 1;
// Captured before plugin code runs: a plugin that replaces Date.now must not stall its timers.
const now = Date.now;

/** Drops the timers of a call that ended (called by the runtime's `endCall`). */
export function clearCallTimers(callId: string): void {
  wakes.delete(callId);
  if (timers.size === 0) return;
  for (const [id, timer] of timers) if (timer.callId === callId) timers.delete(id);
}

/** A value as `console` prints it: strings as they are, the rest as JSON or its string form. */
function show(value: unknown, depth = 0): string {
  if (typeof value === 'string') return depth === 0 ? value : JSON.stringify(value);
  if (value instanceof Error) return value.stack ?? `${value.name}: ${value.message}`;
  if (typeof value === 'function') return `[Function ${value.name || '(anonymous)'}]`;
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'symbol' || value === undefined || value === null) return String(value);
  if (typeof value !== 'object') return String(value);
  if (value instanceof Map) return `Map(${value.size}) ${show(Object.fromEntries(value), depth + 1)}`;
  if (value instanceof Set) return `Set(${value.size}) ${show([...value], depth + 1)}`;
  try {
    const seen = new Set<unknown>();
    return (
      JSON.stringify(value, (_key, v: unknown) => {
        if (typeof v === 'bigint') return `${v}n`;
        if (typeof v === 'object' && v !== null) {
          if (seen.has(v)) return '[Circular]';
          seen.add(v);
        }
        return v;
      }) ?? String(value)
    );
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/** `console.log('%s is %d', a, b)` substitutions, then the remaining arguments joined by spaces. */
function format(args: readonly unknown[]): string {
  if (args.length === 0) return '';
  const [first, ...rest] = args;
  let text: string;
  if (typeof first === 'string' && /%[sdifjoOc%]/.test(first)) {
    text = first.replace(/%([sdifjoOc%])/g, (whole, kind: string) => {
      if (kind === '%') return '%';
      if (rest.length === 0) return whole;
      const value = rest.shift();
      switch (kind) {
        case 's':
          return typeof value === 'string' ? value : show(value, 1);
        case 'd':
        case 'i':
          return String(kind === 'i' ? Math.trunc(Number(value)) : Number(value));
        case 'f':
          return String(Number(value));
        case 'c':
          return '';
        default:
          return show(value, 1);
      }
    });
  } else text = show(first);
  for (const value of rest) text += ` ${show(value)}`;
  return text;
}

function makeConsole(host: GlobalsHost) {
  const line =
    (level: string) =>
    (...args: unknown[]) => {
      const callId = host.currentCall();
      // Over its caps, a call's line is not even formatted.
      if (callId !== undefined && !host.logRoom(callId)) return;
      host.log(callId, level, format(args));
    };
  const counts = new Map<string, number>();
  const started = new Map<string, number>();
  const info = line('info');
  return {
    log: info,
    info,
    debug: line('debug'),
    trace: line('debug'),
    warn: line('warn'),
    error: line('error'),
    dir: (value: unknown) => info(value),
    table: (value: unknown) => info(value),
    assert: (condition: unknown, ...args: unknown[]) => {
      if (!condition) line('error')('Assertion failed', ...args);
    },
    count: (label = 'default') => {
      const n = (counts.get(label) ?? 0) + 1;
      counts.set(label, n);
      info(`${label}: ${n}`);
    },
    countReset: (label = 'default') => counts.delete(label),
    time: (label = 'default') => started.set(label, Date.now()),
    timeLog: (label = 'default', ...args: unknown[]) => {
      const t = started.get(label);
      if (t !== undefined) info(`${label}: ${Date.now() - t}ms`, ...args);
    },
    timeEnd: (label = 'default') => {
      const t = started.get(label);
      started.delete(label);
      if (t !== undefined) info(`${label}: ${Date.now() - t}ms`);
    },
    group: (...args: unknown[]) => (args.length > 0 ? info(...args) : undefined),
    groupCollapsed: (...args: unknown[]) => (args.length > 0 ? info(...args) : undefined),
    groupEnd: () => {},
  };
}

/**
 * Timers as one host sleep per wake-up, not per timer: a call asks the host for a sleep until its
 * earliest timer is due (unless a wake-up that early is already on its way), and each wake-up runs
 * every timer of the call then due, in order, inside the isolate, where their CPU counts against
 * the call's limit. A thousand 1 ms timers cost the host about one core when each was a sleep of
 * its own; now they cost it one wake-up per {@link MIN_INTERVAL_MS} at most.
 */
function makeTimers(host: GlobalsHost) {
  /** Asks the host to wake `callId` in `ms` (for a timer due at `due`), unless an earlier wake-up is coming. */
  const arm = (callId: string, due: number, ms: number) => {
    let pending = wakes.get(callId);
    if (pending === undefined) {
      pending = new Set();
      wakes.set(callId, pending);
    }
    for (const at of pending) if (at <= due) return;
    pending.add(due);
    const owned = pending;
    host.request(
      callId,
      'sleep',
      { ms },
      () => wake(callId, due),
      () => owned.delete(due),
    );
  };
  /** Arms the wake-up for the earliest timer of `callId`, if it has one. */
  const armNext = (callId: string) => {
    let next = Number.POSITIVE_INFINITY;
    for (const timer of timers.values()) if (timer.callId === callId && timer.due < next) next = timer.due;
    if (next !== Number.POSITIVE_INFINITY) arm(callId, next, Math.max(0, next - now()));
  };
  const wake = (callId: string, due: number) => {
    wakes.get(callId)?.delete(due);
    if (!host.running(callId)) return;
    const at = now();
    const ready: [number, Timer][] = [];
    for (const entry of timers) if (entry[1].callId === callId && entry[1].due <= at) ready.push(entry);
    ready.sort((a, b) => a[1].due - b[1].due || a[0] - b[0]);
    for (const [id, timer] of ready) {
      // Cleared (or its call ended) by a callback that ran before it in this wake-up.
      if (timers.get(id) !== timer || !host.running(callId)) continue;
      // Timers set by these callbacks, and the next run of an interval, wait for a later wake-up.
      if (timer.repeat) timer.due = at + timer.ms;
      else timers.delete(id);
      try {
        timer.fn(...timer.args);
      } catch (error) {
        host.log(callId, 'error', `uncaught error in a timer callback: ${show(error)}`);
      }
    }
    if (host.running(callId)) armNext(callId);
  };
  const schedule = (name: string, fn: unknown, delay: unknown, args: unknown[], repeat: boolean) => {
    if (typeof fn !== 'function') {
      throw new TypeError(`${name} needs a function (a string of code is not evaluated in plugins)`);
    }
    const callId = host.currentCall();
    if (callId === undefined) {
      throw new Error(
        `${name} works only while a tool call (or hook) runs: timers are cleared when their call ends`,
      );
    }
    if (timers.size >= MAX_TIMERS) {
      throw new RangeError(`${name}: more than ${MAX_TIMERS} timers are pending in this plugin`);
    }
    let ms = Number(delay);
    if (!(ms >= 0)) ms = 0;
    ms = Math.min(Math.max(ms, repeat ? MIN_INTERVAL_MS : 0), MAX_DELAY_MS);
    const id = nextTimer++;
    const due = now() + ms;
    timers.set(id, { callId, fn: fn as Timer['fn'], args, ms, repeat, due });
    arm(callId, due, ms);
    return id;
  };
  const clear = (id: unknown) => {
    timers.delete(Number(id));
  };
  return {
    setTimeout: (fn: unknown, delay?: unknown, ...args: unknown[]) =>
      schedule('setTimeout', fn, delay, args, false),
    setInterval: (fn: unknown, delay?: unknown, ...args: unknown[]) =>
      schedule('setInterval', fn, delay, args, true),
    clearTimeout: clear,
    clearInterval: clear,
  };
}

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
