/**
 * `ctx.fetch` and the addresses behind a granted name (DNS rebinding, cloud metadata, the LAN).
 * Names resolve through an injected resolver, never real DNS; the servers are real and listen on
 * 127.0.0.1, and count what reaches them.
 */
import { readFileSync } from 'node:fs';
import type * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatIp } from '../../src/capabilities/fetch-address.js';
import { nodeTransport } from '../../src/capabilities/fetch-transport.js';
import type { FetchReply, FetchResolver } from '../../src/capabilities/index.js';
import {
  fakeTransport,
  live,
  PUBLIC_IP,
  provider,
  resolver,
  startServer,
  type TestServer,
} from './helpers.js';

let server: TestServer;
let other: TestServer;
/** The Host header of each request `server` received. */
const hostHeaders: string[] = [];
let port: string;
let otherPort: string;

function hello(req: http.IncomingMessage, res: http.ServerResponse): void {
  hostHeaders.push(String(req.headers.host));
  if (req.url === '/to-internal') {
    res.writeHead(302, { location: `http://internal.example.test:${otherPort}/secret` });
    res.end();
  } else if (req.url === '/to-api') {
    res.writeHead(302, { location: `http://api.example.test:${port}/hello` });
    res.end();
  } else res.end('hello');
}

beforeAll(async () => {
  server = await startServer(hello);
  other = await startServer((_req, res) => res.end('secret'));
  port = server.host.split(':')[1] as string;
  otherPort = other.host.split(':')[1] as string;
});

afterAll(async () => {
  await server.close();
  await other.close();
});

/** A provider whose plugin declares `declared` and whose config grants `declared` plus `extra`. */
function plugin(declared: string[], extra: string[], resolve: FetchResolver, more = {}) {
  return provider('.', { net: declared }, { net: [...declared, ...extra] }, { resolve, ...more });
}

const fetchVia = (p: ReturnType<typeof plugin>, url: string, signal = live()) =>
  p.invoke('fetch', { url }, signal) as Promise<FetchReply>;

const REFUSAL_TAIL =
  'ctx.fetch connects to loopback, private and other special-purpose addresses only when config names the address';

describe('a granted name is only as good as the address it resolves to', () => {
  it('a granted name that resolves to 127.0.0.1 is refused, and the server never sees a request', async () => {
    const p = plugin([`api.example.test:${port}`], [], resolver({ 'api.example.test': ['127.0.0.1'] }));
    const before = server.requests.length;
    await expect(fetchVia(p, `http://api.example.test:${port}/hello`)).rejects.toThrow(
      `ctx.fetch to "api.example.test:${port}" is not allowed: "api.example.test" resolved to 127.0.0.1, ` +
        `a loopback address (127.0.0.0/8). ${REFUSAL_TAIL}; add "127.0.0.1:${port}" to ` +
        'plugins.demo.grants.net to allow it',
    );
    expect(server.requests.length).toBe(before);
  });

  it('the grant the denial suggests lets the same fetch through, still by name', async () => {
    const p = plugin(
      [`api.example.test:${port}`],
      [`127.0.0.1:${port}`],
      resolver({ 'api.example.test': ['127.0.0.1'] }),
    );
    const before = server.requests.length;
    expect(await fetchVia(p, `http://api.example.test:${port}/hello`)).toMatchObject({
      url: `http://api.example.test:${port}/hello`,
      status: 200,
      body: 'hello',
    });
    expect(server.requests.slice(before)).toEqual(['/hello']);
    expect(hostHeaders.at(-1)).toBe(`api.example.test:${port}`);
  });

  it('cloud metadata, LAN, CGNAT, unique local and unspecified addresses are refused before anything is sent', async () => {
    const transport = fakeTransport();
    const answers: Record<string, string> = {
      'metadata.example.test': '169.254.169.254',
      'lan.example.test': '192.168.1.10',
      'ten.example.test': '10.0.0.5',
      'cgnat.example.test': '100.64.1.1',
      'ula.example.test': 'fd00::1',
      'zero.example.test': '0.0.0.0',
      'mapped.example.test': '::ffff:169.254.169.254',
    };
    const names = Object.keys(answers);
    const p = plugin(
      names,
      [],
      resolver(Object.fromEntries(names.map((name) => [name, [answers[name] as string]]))),
      { transport },
    );
    const why: Record<string, string> = {
      'metadata.example.test': '169.254.169.254, a link-local address (169.254.0.0/16)',
      'lan.example.test': '192.168.1.10, a private-network address (192.168.0.0/16)',
      'ten.example.test': '10.0.0.5, a private-network address (10.0.0.0/8)',
      'cgnat.example.test': '100.64.1.1, a carrier-grade NAT (shared) address (100.64.0.0/10)',
      'ula.example.test': 'fd00::1, a unique local (private) address (fc00::/7)',
      'zero.example.test': '0.0.0.0, the unspecified address (0.0.0.0/32)',
      'mapped.example.test':
        '::ffff:a9fe:a9fe, an IPv4-mapped address of 169.254.169.254, a link-local address (169.254.0.0/16)',
    };
    const grant: Record<string, string> = {
      'ula.example.test': '[fd00::1]',
      'mapped.example.test': '169.254.169.254',
    };
    for (const name of names) {
      await expect(fetchVia(p, `https://${name}/`), name).rejects.toThrow(
        `ctx.fetch to "${name}" is not allowed: "${name}" resolved to ${why[name]}. ${REFUSAL_TAIL}; add ` +
          `"${grant[name] ?? answers[name]}" to plugins.demo.grants.net`,
      );
    }
    expect(transport.sent).toEqual([]);
  });

  it('`localhost` in the grant opens loopback addresses only', async () => {
    const answers = { localhost: ['::1', '127.0.0.1'], 'api.example.test': ['127.0.0.1'] };
    const p = provider(
      '.',
      { net: [`localhost:${port}`, `api.example.test:${port}`, `lan.example.test:${port}`] },
      { net: [`localhost:${port}`, `api.example.test:${port}`, `lan.example.test:${port}`] },
      { resolve: resolver({ ...answers, 'lan.example.test': ['10.0.0.1'] }) },
    );
    const before = server.requests.length;
    // ::1 comes first and nothing listens there: the connection falls back to 127.0.0.1.
    expect(await fetchVia(p, `http://localhost:${port}/a`)).toMatchObject({ body: 'hello' });
    expect(await fetchVia(p, `http://api.example.test:${port}/b`)).toMatchObject({ body: 'hello' });
    await expect(fetchVia(p, `http://lan.example.test:${port}/c`)).rejects.toThrow(
      '"lan.example.test" resolved to 10.0.0.1, a private-network address (10.0.0.0/8)',
    );
    expect(server.requests.slice(before)).toEqual(['/a', '/b']);
  });

  it('a grant naming an address opens it on the grant’s port only', async () => {
    const p = plugin(
      [`api.example.test:${otherPort}`],
      [`127.0.0.1:${port}`],
      resolver({ 'api.example.test': ['127.0.0.1'] }),
    );
    await expect(fetchVia(p, `http://api.example.test:${otherPort}/`)).rejects.toThrow(
      `add "127.0.0.1:${otherPort}" to plugins.demo.grants.net to allow it`,
    );
    expect(other.requests).toEqual([]);
  });

  it('each fetch resolves the name once, and connects to that answer: a later answer cannot reuse an earlier check', async () => {
    let calls = 0;
    const asked: string[] = [];
    // First 127.0.0.1 (granted), then a LAN address: the classic rebinding sequence.
    const rebinding: FetchResolver = async (hostname) => {
      asked.push(hostname);
      return [{ address: calls++ === 0 ? '127.0.0.1' : '192.168.0.1' }];
    };
    const transport = nodeTransport();
    const p = plugin([`api.example.test:${port}`], [`127.0.0.1:${port}`], rebinding, { transport });
    const before = server.requests.length;
    expect(await fetchVia(p, `http://api.example.test:${port}/first`)).toMatchObject({ body: 'hello' });
    expect(asked).toEqual(['api.example.test']);
    await expect(fetchVia(p, `http://api.example.test:${port}/second`)).rejects.toThrow(
      '"api.example.test" resolved to 192.168.0.1, a private-network address (192.168.0.0/16)',
    );
    expect(asked).toEqual(['api.example.test', 'api.example.test']);
    expect(server.requests.slice(before)).toEqual(['/first']);
  });
});

describe('a name with several addresses', () => {
  it('only its allowed addresses reach the connection, in the resolver’s order', async () => {
    const transport = fakeTransport();
    const p = plugin(
      ['api.example.test'],
      [],
      resolver({ 'api.example.test': ['10.0.0.1', PUBLIC_IP, '::1', '2606:4700::1111', '169.254.169.254'] }),
      { transport },
    );
    expect(await fetchVia(p, 'https://api.example.test/')).toMatchObject({ body: 'ok' });
    expect(transport.sent.map((request) => request.addresses.map(formatIp))).toEqual([
      [PUBLIC_IP, '2606:4700::1111'],
    ]);
  });

  it('when none is allowed, the denial lists the first three and counts the rest', async () => {
    const transport = fakeTransport();
    const p = plugin(
      ['api.example.test'],
      [],
      resolver({ 'api.example.test': ['10.0.0.1', '::1', '169.254.169.254', 'fd00::1'] }),
      { transport },
    );
    await expect(fetchVia(p, 'http://api.example.test/')).rejects.toThrow(
      '"api.example.test" resolved to 10.0.0.1, a private-network address (10.0.0.0/8); ::1, a loopback ' +
        'address (::1/128); 169.254.169.254, a link-local address (169.254.0.0/16); and 1 more. ' +
        `${REFUSAL_TAIL}; add "10.0.0.1" to plugins.demo.grants.net to allow it`,
    );
    expect(transport.sent).toEqual([]);
  });

  it('an AAAA-only name: a loopback address is refused, a public one allowed', async () => {
    const transport = fakeTransport();
    const p = plugin(
      ['v6.example.test', 'local6.example.test:8080'],
      [],
      resolver({ 'v6.example.test': ['2606:4700::1111'], 'local6.example.test': ['::1'] }),
      { transport },
    );
    expect(await fetchVia(p, 'https://v6.example.test/')).toMatchObject({ body: 'ok' });
    await expect(fetchVia(p, 'http://local6.example.test:8080/')).rejects.toThrow(
      `"local6.example.test" resolved to ::1, a loopback address (::1/128). ${REFUSAL_TAIL}; add "[::1]:8080"`,
    );
    expect(transport.sent.map((request) => request.url.host)).toEqual(['v6.example.test']);
  });

  it('an IPv4-mapped answer is its IPv4 address: refused as loopback, then let through by a grant naming 127.0.0.1', async () => {
    const answers = resolver({ 'api.example.test': ['::ffff:127.0.0.1'] });
    const refused = plugin([`api.example.test:${port}`], [], answers);
    const before = server.requests.length;
    await expect(fetchVia(refused, `http://api.example.test:${port}/mapped`)).rejects.toThrow(
      `"api.example.test" resolved to ::ffff:7f00:1, an IPv4-mapped address of 127.0.0.1, a loopback address ` +
        `(127.0.0.0/8). ${REFUSAL_TAIL}; add "127.0.0.1:${port}"`,
    );
    expect(server.requests.length).toBe(before);
    const allowed = plugin([`api.example.test:${port}`], [`127.0.0.1:${port}`], answers);
    expect(await fetchVia(allowed, `http://api.example.test:${port}/mapped`)).toMatchObject({
      body: 'hello',
    });
    expect(server.requests.slice(before)).toEqual(['/mapped']);
  });
});

describe('redirects are resolved and checked again, hop by hop', () => {
  it('a redirect to a granted name that resolves to loopback is refused before following it', async () => {
    const resolve = resolver({ 'internal.example.test': ['127.0.0.1'] });
    const p = plugin([server.host, `internal.example.test:${otherPort}`], [], resolve);
    await expect(fetchVia(p, `${server.origin}/to-internal`)).rejects.toThrow(
      `ctx.fetch to "internal.example.test:${otherPort}" (redirected from "${server.host}") is not allowed: ` +
        '"internal.example.test" resolved to 127.0.0.1, a loopback address (127.0.0.0/8)',
    );
    expect(resolve.asked).toEqual(['internal.example.test']);
    expect(other.requests).toEqual([]);
  });

  it('a redirect to a name whose address the grants open is followed, and that name is resolved for it', async () => {
    const resolve = resolver({ 'api.example.test': ['127.0.0.1'] });
    const p = plugin([server.host, `api.example.test:${port}`], [], resolve);
    expect(await fetchVia(p, `${server.origin}/to-api`)).toMatchObject({
      url: `http://api.example.test:${port}/hello`,
      body: 'hello',
    });
    expect(resolve.asked).toEqual(['api.example.test']);
    expect(hostHeaders.slice(-2)).toEqual([server.host, `api.example.test:${port}`]);
  });
});

describe('resolution failures', () => {
  it('a name that does not resolve fails with the resolver’s code', async () => {
    const p = plugin(['nowhere.example.test'], [], resolver({}));
    await expect(fetchVia(p, 'http://nowhere.example.test/')).rejects.toThrow(
      'ctx.fetch to "nowhere.example.test" failed: ENOTFOUND',
    );
  });

  it('a resolver that answers no IP address fails, naming the host', async () => {
    const p = plugin(['odd.example.test'], [], resolver({ 'odd.example.test': ['not-an-address'] }));
    await expect(fetchVia(p, 'http://odd.example.test/')).rejects.toThrow(
      'ctx.fetch to "odd.example.test" failed: its host name resolved to no address',
    );
  });

  it('a resolver that never answers is bounded by fetchTimeoutMs, and the call’s signal aborts it', async () => {
    const hang: FetchResolver = () => new Promise(() => {});
    const slow = plugin(['slow.example.test'], [], hang, { limits: { fetchTimeoutMs: 100 } });
    await expect(fetchVia(slow, 'http://slow.example.test/')).rejects.toThrow(
      'ctx.fetch to "slow.example.test" timed out after 100 ms (the fetchTimeoutMs limit; raise plugins.demo.limits.fetchTimeoutMs in the config to allow more)',
    );
    const controller = new AbortController();
    const pending = fetchVia(
      plugin(['slow.example.test'], [], hang),
      'http://slow.example.test/',
      controller.signal,
    );
    controller.abort();
    await expect(pending).rejects.toThrow(
      'ctx.fetch to "slow.example.test" was aborted: the call was cancelled',
    );
  });
});

describe('https keeps the host name for SNI and the certificate check', () => {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const cert = readFileSync(path.join(here, 'fixtures', 'tls', 'api.example.test.crt'), 'utf8');
  const key = readFileSync(path.join(here, 'fixtures', 'tls', 'api.example.test.key'), 'utf8');
  let tls: https.Server;
  let tlsPort: number;
  const serverNames: unknown[] = [];

  beforeAll(async () => {
    tls = https.createServer({ cert, key }, (_req, res) => res.end('secure hello'));
    tls.on('secureConnection', (socket) => serverNames.push(socket.servername));
    await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
    tlsPort = (tls.address() as AddressInfo).port;
  });

  afterAll(async () => {
    tls.closeAllConnections();
    await new Promise((resolve) => tls.close(resolve));
  });

  const tlsPlugin = (transport = nodeTransport({ ca: cert })) =>
    plugin(
      [`api.example.test:${tlsPort}`, `127.0.0.1:${tlsPort}`],
      [],
      resolver({ 'api.example.test': ['127.0.0.1'] }),
      { transport },
    );

  it('connects to the checked address, sends the name as SNI and verifies the certificate against it', async () => {
    expect(await fetchVia(tlsPlugin(), `https://api.example.test:${tlsPort}/`)).toMatchObject({
      status: 200,
      body: 'secure hello',
    });
    expect(serverNames).toEqual(['api.example.test']);
  });

  it('the certificate is checked against the URL’s host, so the same server by IP fails verification', async () => {
    await expect(fetchVia(tlsPlugin(), `https://127.0.0.1:${tlsPort}/`)).rejects.toThrow(
      `ctx.fetch to "127.0.0.1:${tlsPort}" failed: ERR_TLS_CERT_ALTNAME_INVALID`,
    );
  });

  it('certificates are verified by default: a self-signed one is refused', async () => {
    await expect(
      fetchVia(tlsPlugin(nodeTransport()), `https://api.example.test:${tlsPort}/`),
    ).rejects.toThrow(
      /^ctx\.fetch to "api\.example\.test:\d+" failed: (DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN)$/,
    );
  });
});
