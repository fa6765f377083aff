/**
 * The network gate of a jailed process tool: the only way out of its network namespace. Two
 * filtering proxies from `@anthropic-ai/sandbox-runtime` (its HTTP CONNECT / absolute-URI proxy
 * and its SOCKS5 proxy, used as parts: the runtime's `SandboxManager` is one policy per process,
 * and a host runs many servers with a policy each) listen on Unix sockets in a private folder
 * that is bound into that one jail, where `relay-main.ts` offers them on the jail's loopback.
 *
 * Each connection's host and port must match a `net` grant, in the vocabulary and by the rules of
 * plugins' `grants.net` (host-patterns.ts: a pattern without a port means 80 and 443), and every
 * address the name resolves to passes `ctx.fetch`'s address rule (fetch-target.ts): a loopback,
 * private or other special-purpose address only when a grant names it by IP (or, loopback, as
 * `localhost`). The proxy connects to exactly a checked address. Every refusal is reported.
 */
import { randomBytes } from 'node:crypto';
import {
  promises as dnsPromises,
  type LookupAddress,
  type LookupAllOptions,
  type LookupOptions,
} from 'node:dns';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { createServer, type LookupFunction, type Server as NetServer } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import type { NetGate } from '../jail/index.js';
import { GATE_HTTP_SOCKET, GATE_SOCKS_SOCKET } from '../jail/index.js';
import {
  describeSpecial,
  grantLiteral,
  type IpAddress,
  parseIp,
  sameIp,
  specialAddress,
} from './fetch-address.js';
import { type HostPattern, parseHostPattern, patternMatchesUrl, portMatches } from './host-patterns.js';

/** One connection the gate refused: where to, why, and the grant that would allow it. */
export interface GateRefusal {
  readonly host: string;
  readonly port: number;
  readonly why: string;
  /** What to add to the `net` grant. */
  readonly grant: string;
}

/** A URL for a proxied destination, so the patterns' port rule applies (443: https, else http). */
function destination(host: string, port: number): URL | undefined {
  const ip = parseIp(host);
  const name = ip?.family === 6 ? `[${host.replace(/^\[|\]$/g, '')}]` : host;
  try {
    return new URL(`${port === 443 ? 'https' : 'http'}://${name}:${port}/`);
  } catch {
    return undefined;
  }
}

function authority(url: URL): string {
  return url.port === '' ? url.hostname : `${url.hostname}:${url.port}`;
}

/** A grant that opens special addresses: one IP, or every loopback one (`localhost`). */
interface AddressGrant {
  readonly address: IpAddress | 'loopback';
  readonly pattern: HostPattern;
}

/** Decides connections for one jailed process, by its grants. */
export class GateRules {
  readonly #patterns: readonly HostPattern[];
  readonly #addressGrants: readonly AddressGrant[];

  constructor(grants: readonly string[]) {
    this.#patterns = grants.map(parseHostPattern).filter((p): p is HostPattern => p !== undefined);
    this.#addressGrants = this.#patterns.flatMap((pattern) => {
      if (pattern.wildcard) return [];
      const address = pattern.host === 'localhost' ? 'loopback' : parseIp(pattern.host);
      return address === undefined ? [] : [{ address, pattern }];
    });
  }

  /** The refusal of `host:port` by name (no grant matches), or undefined when a grant matches. */
  byName(host: string, port: number): GateRefusal | undefined {
    const url = destination(host, port);
    if (url === undefined) return { host, port, why: 'not a host name or address', grant: host };
    if (this.#patterns.some((pattern) => patternMatchesUrl(pattern, url))) {
      const ip = parseIp(url.hostname);
      return ip === undefined ? undefined : this.byAddress(url, [ip]).refusal;
    }
    return { host: url.hostname, port, why: 'no net grant names it', grant: authority(url) };
  }

  /** The addresses of `url`'s host that may be connected to; a refusal when none may. */
  byAddress(url: URL, addresses: readonly IpAddress[]): { allowed: IpAddress[]; refusal?: GateRefusal } {
    const allowed = addresses.filter((ip) => {
      const special = specialAddress(ip);
      if (special === undefined) return true;
      return this.#addressGrants.some(
        (grant) =>
          portMatches(grant.pattern, url) &&
          (grant.address === 'loopback' ? special.kind === 'loopback' : sameIp(grant.address, ip)),
      );
    });
    if (allowed.length > 0 || addresses.length === 0) return { allowed };
    const first = addresses[0] as IpAddress;
    const port = Number(url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : url.port);
    return {
      allowed,
      refusal: {
        host: url.hostname,
        port,
        why: `${parseIp(url.hostname) === undefined ? 'it resolved to ' : 'it is '}${describeSpecial(first, specialAddress(first) as NonNullable<ReturnType<typeof specialAddress>>)}, reached only when a grant names the address`,
        grant: `${grantLiteral(first)}${url.port === '' ? '' : `:${url.port}`}`,
      },
    };
  }
}

/**
 * sandbox-runtime's proxies, loaded when the first gate opens: with its dependencies (node-forge
 * among them) it is ≈ 70 modules and 200 ms of a start, which a host with no network grant
 * would pay for nothing.
 */
let runtime:
  | Promise<{
      createHttpProxyServer: typeof import('@anthropic-ai/sandbox-runtime/dist/sandbox/http-proxy.js').createHttpProxyServer;
      createSocksProxyServer: typeof import('@anthropic-ai/sandbox-runtime/dist/sandbox/socks-proxy.js').createSocksProxyServer;
      ResolvedAddressDeniedError: typeof import('@anthropic-ai/sandbox-runtime/dist/sandbox/resolved-address-guard.js').ResolvedAddressDeniedError;
    }>
  | undefined;

function sandboxRuntime() {
  runtime ??= Promise.all([
    import('@anthropic-ai/sandbox-runtime/dist/sandbox/http-proxy.js'),
    import('@anthropic-ai/sandbox-runtime/dist/sandbox/socks-proxy.js'),
    import('@anthropic-ai/sandbox-runtime/dist/sandbox/resolved-address-guard.js'),
  ]).then(([http, socks, guard]) => ({
    createHttpProxyServer: http.createHttpProxyServer,
    createSocksProxyServer: socks.createSocksProxyServer,
    ResolvedAddressDeniedError: guard.ResolvedAddressDeniedError,
  }));
  return runtime;
}

/** Opens the gate for one jailed process; `onRefused` hears every refused connection. */
export async function openNetGate(
  grants: readonly string[],
  onRefused: (refusal: GateRefusal) => void,
): Promise<NetGate> {
  const { createHttpProxyServer, createSocksProxyServer, ResolvedAddressDeniedError } =
    await sandboxRuntime();
  const rules = new GateRules(grants);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'toolhost-net-'));
  const token = randomBytes(16).toString('hex');
  const filter = (port: number, host: string): boolean => {
    const refusal = rules.byName(host, port);
    if (refusal !== undefined) onRefused(refusal);
    return refusal === undefined;
  };
  const lookupFor = (port: number): LookupFunction =>
    guardedLookup(rules, port, onRefused, ResolvedAddressDeniedError);
  const http: Server = createHttpProxyServer({
    filter,
    lookupFor,
    proxyAuthToken: token,
    requireAsciiHost: true,
  });
  const socks = createSocksProxyServer({ filter, lookupFor, proxyAuthToken: token });
  const socksListener: NetServer = createServer((socket) => socks.handleConnection(socket));
  await Promise.all([
    listen(http, path.join(dir, GATE_HTTP_SOCKET)),
    listen(socksListener, path.join(dir, GATE_SOCKS_SOCKET)),
  ]);
  // A gate must never keep the host alive on its own.
  http.unref();
  socksListener.unref();
  let closed: Promise<void> | undefined;
  return {
    dir,
    token,
    close: () => {
      closed ??= (async () => {
        http.closeAllConnections();
        await Promise.all([closeServer(http), closeServer(socksListener), socks.close()]);
        rmSync(dir, { recursive: true, force: true });
      })();
      return closed;
    },
  };
}

function listen(server: Server | NetServer, socket: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(socket, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function closeServer(server: Server | NetServer): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/**
 * A `lookup` for the proxies' direct dials: the system resolver, then the address rule; only the
 * allowed addresses are handed back, so the proxy connects to one of them and nothing else.
 */
function guardedLookup(
  rules: GateRules,
  port: number,
  onRefused: (refusal: GateRefusal) => void,
  ResolvedAddressDeniedError: new (host: string, why: string, addresses: string[]) => Error,
): LookupFunction {
  return ((hostname: string, options: LookupOptions | LookupAllOptions, callback: LookupCallback) => {
    const url = destination(hostname, port);
    if (url === undefined) {
      callback(Object.assign(new Error(`bad host ${hostname}`), { code: 'EINVAL' }), []);
      return;
    }
    dnsPromises.lookup(hostname, { all: true }).then(
      (answer: LookupAddress[]) => {
        const ips = answer
          .map((entry) => parseIp(entry.address))
          .filter((ip): ip is IpAddress => ip !== undefined);
        const { allowed, refusal } = rules.byAddress(url, ips);
        if (refusal !== undefined) {
          onRefused(refusal);
          callback(
            new ResolvedAddressDeniedError(
              hostname,
              refusal.why,
              ips.map(grantLiteral),
            ) as NodeJS.ErrnoException,
            [],
          );
          return;
        }
        const kept = answer.filter((entry) => {
          const ip = parseIp(entry.address);
          return ip !== undefined && allowed.some((ok) => sameIp(ok, ip));
        });
        if ((options as LookupAllOptions).all === true) callback(null, kept);
        else {
          const first = kept[0];
          if (first === undefined)
            callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), []);
          else
            (callback as unknown as (e: null, a: string, f: number) => void)(
              null,
              first.address,
              first.family,
            );
        }
      },
      (error: NodeJS.ErrnoException) => callback(error, []),
    );
  }) as LookupFunction;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void;
