/**
 * Sending one `ctx.fetch` hop: node:http / node:https with a `lookup` that answers with the
 * addresses already checked, so the socket connects to one of those and to nothing else. The
 * request keeps the host *name* everywhere else: in the Host header, as the TLS server name (SNI)
 * and for certificate verification.
 *
 * Each plugin gets its own transport and so its own connection pool: a kept-alive socket was
 * opened to an address that plugin's grants allow, and is never lent to another plugin.
 */

import type { LookupAddress, LookupOptions } from 'node:dns';
import * as http from 'node:http';
import * as https from 'node:https';
import { pipeline, type Readable } from 'node:stream';
import * as zlib from 'node:zlib';
import { formatIp, type IpAddress, parseIp } from './fetch-address.js';

/** One hop, after every check. */
export interface TransportRequest {
  readonly url: URL;
  /** Checked addresses of `url`'s host, at least one; the connection goes to one of them. */
  readonly addresses: readonly IpAddress[];
  readonly method: string;
  /** Lower-case names; the transport adds defaults the plugin did not set. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | undefined;
  /** Aborts the request, and the body download once the response has arrived. */
  readonly signal: AbortSignal;
}

export interface TransportResponse {
  readonly status: number;
  readonly statusText: string;
  /** Lower-case names, sorted; repeated fields joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body, with its content coding (gzip, deflate, br) removed. */
  readonly body: AsyncIterable<Uint8Array>;
  /** Stops the download and frees the connection. */
  cancel(): void;
}

export type FetchTransport = (request: TransportRequest) => Promise<TransportResponse>;

const DEFAULT_HEADERS: Readonly<Record<string, string>> = {
  accept: '*/*',
  'accept-encoding': 'gzip, deflate',
  'user-agent': 'toolhost',
};

const DECODERS: Readonly<Record<string, () => zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress>> = {
  gzip: zlib.createGunzip,
  'x-gzip': zlib.createGunzip,
  deflate: zlib.createInflate,
  br: zlib.createBrotliDecompress,
};
const IDLE_SOCKET_MS = 4000;
/** More stacked codings than this are passed through undecoded. */
const MAX_CODINGS = 2;

export interface NodeTransportOptions {
  /** Certificate authorities https trusts instead of Node's bundled roots (tests, private CAs). */
  readonly ca?: string | readonly string[];
}

/** A transport over node:http(s); its agents are made on first use. */
export function nodeTransport(options: NodeTransportOptions = {}): FetchTransport {
  let agents: { readonly http: http.Agent; readonly https: https.Agent } | undefined;

  return (request) =>
    new Promise((resolve, reject) => {
      // Idle sockets are unref'd and closed after 4 s: before the 5 s after which a Node server closes
      // them, so a request is not sent on a socket the server is closing (undici's default too).
      agents ??= {
        http: new http.Agent({ keepAlive: true, scheduling: 'lifo', timeout: IDLE_SOCKET_MS }),
        https: new https.Agent({
          keepAlive: true,
          scheduling: 'lifo',
          timeout: IDLE_SOCKET_MS,
          ...(options.ca === undefined ? {} : { ca: options.ca as string | string[] }),
        }),
      };
      const { url, method, body } = request;
      const secure = url.protocol === 'https:';
      const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
      const isName = parseIp(url.hostname) === undefined;
      const headers: Record<string, string> = { ...DEFAULT_HEADERS, ...request.headers };
      if (method !== 'GET' && method !== 'HEAD')
        headers['content-length'] = String(Buffer.byteLength(body ?? ''));
      const req = (secure ? https : http).request(
        {
          protocol: url.protocol,
          hostname,
          port: url.port === '' ? undefined : Number(url.port),
          path: `${url.pathname}${url.search}`,
          method,
          headers,
          agent: secure ? agents.https : agents.http,
          lookup: pinnedLookup(hostname, request.addresses),
          ...(secure && isName ? { servername: hostname } : {}),
        },
        (res) => resolve(responseOf(res, method)),
      );
      req.on('error', reject);
      abortWith(req, request.signal);
      req.end(body);
    });
}

/**
 * Ends `req`, or its response's body once there is one, when `signal` aborts while either is
 * still under way; not through `http.request`'s own `signal`, whose listener stays on the signal
 * after the request is done and then destroys the keep-alive socket the request used, wherever
 * it is by then. A client that keeps one signal for many requests (the MCP SDK's transport does)
 * would, on closing, destroy sockets back in the agent's pool, which have no error listener: an
 * uncaught exception in the host.
 */
function abortWith(req: http.ClientRequest, signal: AbortSignal | undefined): void {
  if (signal === undefined) return;
  let response: http.IncomingMessage | undefined;
  let done = false;
  const abort = () => {
    if (done) return;
    done = true;
    const error = new Error('The operation was aborted', { cause: signal.reason });
    error.name = 'AbortError';
    if (response === undefined) req.destroy(error);
    else response.destroy(error);
  };
  const finish = () => {
    done = true;
    signal.removeEventListener('abort', abort);
  };
  if (signal.aborted) {
    abort();
    return;
  }
  signal.addEventListener('abort', abort, { once: true });
  req.once('error', finish);
  req.once('response', (res: http.IncomingMessage) => {
    response = res;
    res.once('end', finish);
    res.once('close', finish);
  });
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for `net.connect` that knows one name and answers with the checked addresses (all of
 * them when asked for all, so Node can try each family). Node never calls it for an IP literal.
 */
function pinnedLookup(hostname: string, addresses: readonly IpAddress[]) {
  return (name: string, options: LookupOptions, callback: LookupCallback) => {
    const family = options.family === 4 || options.family === 6 ? options.family : undefined;
    const entries = addresses
      .filter((ip) => family === undefined || ip.family === family)
      .map((ip) => ({ address: formatIp(ip), family: ip.family }));
    const first = entries[0];
    if (name !== hostname || first === undefined) {
      const error: NodeJS.ErrnoException = new Error(`no checked address for ${name}`);
      error.code = 'ENOTFOUND';
      process.nextTick(callback, error, '');
    } else if (options.all === true) process.nextTick(callback, null, entries);
    else process.nextTick(callback, null, first.address, first.family);
  };
}

function responseOf(res: http.IncomingMessage, method: string): TransportResponse {
  const body = decoded(res, method);
  return {
    status: res.statusCode ?? 0,
    statusText: res.statusMessage ?? '',
    headers: headersRecord(res.rawHeaders),
    body,
    cancel() {
      body.destroy();
      res.destroy();
    },
  };
}

/** The body with its content codings removed, when each is one we know. */
function decoded(res: http.IncomingMessage, method: string): Readable {
  const header = res.headers['content-encoding'];
  if (header === undefined || method === 'HEAD' || res.statusCode === 204 || res.statusCode === 304) {
    return res;
  }
  const codings = header
    .toLowerCase()
    .split(',')
    .map((coding) => coding.trim())
    .filter((coding) => coding !== '' && coding !== 'identity');
  if (codings.length === 0 || codings.length > MAX_CODINGS) return res;
  const makers = [];
  // Codings are listed in the order they were applied: undo the last one first.
  for (const coding of codings.reverse()) {
    const make = Object.hasOwn(DECODERS, coding) ? DECODERS[coding] : undefined;
    if (make === undefined) return res;
    makers.push(make);
  }
  const decoders = makers.map((make) => make());
  // An error in any stage destroys every stage, so it surfaces where the last one is read; and
  // destroying the last one (the body was cancelled) destroys the response too.
  pipeline([res, ...decoders], () => {});
  return decoders[decoders.length - 1] as Readable;
}

/** Response headers as a plain record, sorted by name; repeated fields joined with `, `. */
function headersRecord(raw: readonly string[]): Record<string, string> {
  const fields = new Map<string, string>();
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = (raw[i] as string).toLowerCase();
    const value = raw[i + 1] as string;
    const previous = fields.get(name);
    fields.set(name, previous === undefined ? value : `${previous}, ${value}`);
  }
  const names = [...fields.keys()].sort();
  // fromEntries defines own properties, so a field named `__proto__` stays a plain field.
  return Object.fromEntries(names.map((name) => [name, fields.get(name) as string]));
}
