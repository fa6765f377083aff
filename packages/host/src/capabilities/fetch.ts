/**
 * `ctx.fetch` on the host. Redirects are followed here, one hop at a time, and every hop goes
 * through the same steps: its URL is checked against the grants, its host is resolved once, each
 * address is checked (`fetch-target.ts`), and the transport connects to a checked address and to
 * no other. One deadline (`fetchTimeoutMs`) covers every hop, its resolution and the body; the
 * call's signal aborts it all.
 *
 * Request headers: the plugin may set any well-formed header except those that would let it
 * reach something other than the URL it was granted or desynchronize the connection: `host`,
 * `connection`, `content-length`, `transfer-encoding`, `te`, `trailer`, `upgrade`, `keep-alive`,
 * `expect`, `http2-settings` and `proxy-*`. It may send `authorization` and `cookie` (its own
 * secrets: the host has no cookie jar to leak); both are dropped when a redirect changes origin.
 *
 * The call's W3C trace context (`traceparent`, `tracestate`, `baggage`: its execute_tool span's
 * when an OpenTelemetry SDK is registered, else the caller's as it came) goes with every hop, as
 * it goes to a bridged MCP server, so the service's spans join the agent's trace. A header of
 * that name the plugin set itself is kept.
 */

import { raiseHint } from '../config/limits.js';
import type { TraceContext } from '../types.js';
import { type FetchArgs, MAX_URL_CHARS } from './args.js';
import { aborted, failed, invalidArgs, isCapabilityError, limitExceeded, timedOut } from './errors.js';
import { readCappedText } from './fetch-body.js';
import { type FetchResolver, hostAddresses } from './fetch-resolve.js';
import { FetchSlots } from './fetch-slots.js';
import {
  addressGrants,
  checkTarget,
  connectableAddresses,
  type FetchTargets,
  fetchSubject,
} from './fetch-target.js';
import type { FetchTransport } from './fetch-transport.js';
import type { CapabilityLimits } from './types.js';

/** The reply the runtime's `responseOf` turns into a `FetchResponse`. */
export interface FetchReply {
  readonly url: string;
  readonly status: number;
  readonly statusText: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

const METHODS = new Set(['DELETE', 'GET', 'HEAD', 'PATCH', 'POST', 'PUT']);
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const FORBIDDEN_HEADERS = new Set([
  'connection',
  'content-length',
  'expect',
  'host',
  'http2-settings',
  'keep-alive',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);
/** Dropped when a redirect leads to another origin, as browsers do. */
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];
/** Dropped with the body when a redirect turns the request into a GET. */
const BODY_HEADERS = ['content-encoding', 'content-language', 'content-location', 'content-type'];

export interface FetchCapabilityOptions extends FetchTargets {
  readonly limits: CapabilityLimits;
  readonly resolve: FetchResolver;
  readonly transport: FetchTransport;
}

export function createFetchCapability(options: FetchCapabilityOptions) {
  const { limits } = options;
  const grants = addressGrants(options.granted);
  const slots = new FetchSlots(limits.fetchConcurrency);

  return async function serveFetch(
    args: FetchArgs,
    signal: AbortSignal,
    trace?: TraceContext,
  ): Promise<FetchReply> {
    const first = parseUrl(args.url);
    checkTarget(options, first);
    let url = first;
    let from: URL | undefined;
    let method = methodOf(args.options?.method);
    let body = args.options?.body ?? undefined;
    const headers = requestHeaders(args.options?.headers ?? {});
    if (trace !== undefined) addTraceHeaders(headers, trace);
    if (body !== undefined) {
      if (method === 'GET' || method === 'HEAD')
        throw invalidArgs('fetch', `a ${method} request cannot have a body`);
      const size = Buffer.byteLength(body, 'utf8');
      if (size > limits.fetchMaxBytes) {
        throw limitExceeded(
          'fetch',
          `${fetchSubject(url, undefined)}: the request body of ${size} bytes is over the fetchMaxBytes limit of ${limits.fetchMaxBytes} bytes; ${raiseHint(options.pluginId, 'fetchMaxBytes')}`,
        );
      }
    }

    let release: () => void;
    try {
      release = await slots.acquire(signal);
    } catch {
      throw aborted('fetch', `${fetchSubject(url, undefined)} was aborted: the call was cancelled`);
    }
    const deadline = new AbortController();
    let stop: 'aborted' | 'timeout' | undefined;
    const timer = setTimeout(() => {
      stop ??= 'timeout';
      deadline.abort();
    }, limits.fetchTimeoutMs);
    const onAbort = () => {
      stop ??= 'aborted';
      deadline.abort();
    };
    signal.addEventListener('abort', onAbort);
    if (signal.aborted) onAbort();

    try {
      for (let hops = 0; ; hops++) {
        const resolved = await hostAddresses(url, options.resolve, deadline.signal);
        if (resolved.length === 0) {
          throw failed('fetch', `${fetchSubject(url, from)} failed: its host name resolved to no address`);
        }
        const response = await options.transport({
          url,
          addresses: connectableAddresses(options, grants, url, resolved, from),
          method,
          headers: Object.fromEntries(headers),
          body,
          signal: deadline.signal,
        });
        const location = REDIRECT_STATUSES.has(response.status) ? response.headers.location : undefined;
        if (location === undefined) {
          const text = await readCappedText(response.body, limits.fetchMaxBytes);
          if (text === undefined) {
            throw limitExceeded(
              'fetch',
              `${fetchSubject(url, undefined)}: the response body is over the fetchMaxBytes limit of ${limits.fetchMaxBytes} bytes; ${raiseHint(options.pluginId, 'fetchMaxBytes')}`,
            );
          }
          return {
            url: url.href,
            status: response.status,
            statusText: response.statusText,
            headers: response.headers,
            body: text,
          };
        }
        response.cancel();
        if (hops >= limits.fetchMaxRedirects) {
          throw limitExceeded(
            'fetch',
            `${fetchSubject(first, undefined)} was redirected more than ${limits.fetchMaxRedirects} times (the fetchMaxRedirects limit)`,
          );
        }
        const next = redirectTarget(location, url);
        checkTarget(options, next, url);
        if (next.origin !== url.origin) for (const name of CREDENTIAL_HEADERS) headers.delete(name);
        const status = response.status;
        if (
          (status === 303 && method !== 'HEAD') ||
          ((status === 301 || status === 302) && method === 'POST')
        ) {
          method = 'GET';
          body = undefined;
          for (const name of BODY_HEADERS) headers.delete(name);
        }
        from = url;
        url = next;
      }
    } catch (error) {
      const subject = fetchSubject(url, undefined);
      if (stop === 'timeout') {
        throw timedOut(
          'fetch',
          `${subject} timed out after ${limits.fetchTimeoutMs} ms (the fetchTimeoutMs limit; ${raiseHint(options.pluginId, 'fetchTimeoutMs')})`,
        );
      }
      if (stop === 'aborted') throw aborted('fetch', `${subject} was aborted: the call was cancelled`);
      if (isCapabilityError(error)) throw error;
      throw failed('fetch', `${subject} failed: ${reasonOf(error)}`);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      release();
    }
  };
}

function parseUrl(text: string): URL {
  try {
    return new URL(text);
  } catch {
    throw invalidArgs('fetch', 'url: is not an absolute URL');
  }
}

function redirectTarget(location: string, base: URL): URL {
  let next: URL | undefined;
  try {
    next = new URL(location, base);
  } catch {
    next = undefined;
  }
  if (next === undefined || next.href.length > MAX_URL_CHARS) {
    throw failed('fetch', `${fetchSubject(base, undefined)} failed: it redirected to an invalid URL`);
  }
  return next;
}

function methodOf(raw: string | undefined): string {
  const method = (raw ?? 'GET').toUpperCase();
  if (!METHODS.has(method)) {
    throw invalidArgs('fetch', `options.method: must be one of ${[...METHODS].join(', ')}`);
  }
  return method;
}

function requestHeaders(raw: Readonly<Record<string, string>>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    const lower = name.toLowerCase();
    if (FORBIDDEN_HEADERS.has(lower) || lower.startsWith('proxy-')) {
      throw invalidArgs(
        'fetch',
        `options.headers: ctx.fetch may not set the ${JSON.stringify(lower)} header`,
      );
    }
    try {
      headers.append(name, value);
    } catch {
      throw invalidArgs('fetch', `options.headers.${lower}: is not a valid header value`);
    }
  }
  return headers;
}

/** The trace context's headers, where the plugin set none of that name. */
function addTraceHeaders(headers: Headers, trace: TraceContext): void {
  for (const name of ['traceparent', 'tracestate', 'baggage'] as const) {
    const value = trace[name];
    if (value !== undefined && !headers.has(name)) headers.set(name, value);
  }
}

/** A network failure in a few words: the system error code, never a message with addresses. */
function reasonOf(error: unknown): string {
  const cause = (error as { cause?: unknown } | null)?.cause;
  const code = (cause as { code?: unknown } | null)?.code ?? (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^[A-Z0-9_]{1,40}$/.test(code)) return code;
  return 'network error';
}
