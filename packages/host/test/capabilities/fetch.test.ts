import type * as http from 'node:http';
import * as zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  CapabilityLimits,
  FetchReply,
  FetchTransport,
  PluginGrants,
} from '../../src/capabilities/index.js';
import {
  fakeTransport,
  live,
  PUBLIC_IP,
  provider,
  resolver,
  startServer,
  type TestServer,
} from './helpers.js';

/** `/coded/<name>`: a body with this content-encoding header, encoded so. */
const CODED: Record<string, readonly [string, (data: Buffer) => Buffer]> = {
  gzip: ['gzip', zlib.gzipSync],
  deflate: ['deflate', zlib.deflateSync],
  br: ['br', zlib.brotliCompressSync],
  stacked: ['deflate, gzip', (data) => zlib.gzipSync(zlib.deflateSync(data))],
  unknown: ['x-custom', (data) => data],
};
/** 4 MB of zeros in about 4 kB. */
const BOMB = zlib.gzipSync(Buffer.alloc(4 * 1024 * 1024));

let main: TestServer;
let other: TestServer;

function echo(req: http.IncomingMessage, res: http.ServerResponse): void {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk: string) => {
    body += chunk;
  });
  req.on('end', () => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ method: req.method, headers: req.headers, body }));
  });
}

beforeAll(async () => {
  other = await startServer((req, res) => {
    if (req.url === '/echo') return echo(req, res);
    res.end('from other');
  });
  main = await startServer((req, res) => {
    const url = req.url ?? '/';
    const redirect = (status: number, location: string) => {
      res.writeHead(status, { location });
      res.end();
    };
    if (url === '/hello') {
      res.setHeader('x-test', 'yes');
      res.setHeader('set-cookie', ['a=1', 'b=2']);
      res.end('hello');
    } else if (url === '/echo') echo(req, res);
    else if (url === '/to-other') redirect(302, `${other.origin}/hello`);
    else if (url === '/to-other-echo') redirect(307, `${other.origin}/echo`);
    else if (url === '/see-other') redirect(303, '/echo');
    else if (url === '/to-file') redirect(302, 'file:///etc/passwd');
    else if (url === '/with-credentials') redirect(302, `http://user:pw@${main.host}/hello`);
    else if (url.startsWith('/loop/')) redirect(302, `/loop/${Number(url.slice(6)) + 1}`);
    else if (url === '/big') {
      // Far more than the cap, in chunks, to show the cap stops the download early.
      const chunk = 'x'.repeat(64 * 1024);
      for (let i = 0; i < 32; i++) res.write(chunk);
      res.end();
    } else if (url.startsWith('/coded/')) {
      const [coding, encode] = CODED[url.slice('/coded/'.length)] ?? ['identity', (data: Buffer) => data];
      res.setHeader('content-encoding', coding);
      res.end(encode(Buffer.from('hello, decoded')));
    } else if (url === '/bomb') {
      res.setHeader('content-encoding', 'gzip');
      res.end(BOMB);
    } else if (url === '/slow') {
      res.writeHead(200);
      res.write('partial');
      // Never ends: the deadline or the abort must end the request.
    } else {
      res.writeHead(404);
      res.end('not found');
    }
  });
});

afterAll(async () => {
  await main.close();
  await other.close();
});

function granted(extraGrants: string[] = [], limits: Partial<CapabilityLimits> = {}) {
  const hosts = [main.host, ...extraGrants];
  return provider('.', { net: hosts }, { net: hosts }, { limits });
}

const fetchVia = (p: ReturnType<typeof granted>, url: string, options?: unknown, signal = live()) =>
  p.invoke('fetch', { url, options }, signal) as Promise<FetchReply>;

describe('fetch to a granted host', () => {
  it('returns url, status, statusText, headers and the body as text', async () => {
    const reply = await fetchVia(granted(), `${main.origin}/hello`);
    expect(reply).toMatchObject({
      url: `${main.origin}/hello`,
      status: 200,
      statusText: 'OK',
      body: 'hello',
    });
    expect(reply.headers['x-test']).toBe('yes');
    expect(reply.headers['set-cookie']).toBe('a=1, b=2');
    expect(Object.keys(reply)).toEqual(['url', 'status', 'statusText', 'headers', 'body']);
  });

  it('sends method, headers and a text body', async () => {
    const reply = await fetchVia(granted(), `${main.origin}/echo`, {
      method: 'post',
      headers: { 'X-Custom': 'v', authorization: 'Bearer t' },
      body: 'payload',
    });
    expect(JSON.parse(reply.body)).toMatchObject({
      method: 'POST',
      headers: { 'x-custom': 'v', authorization: 'Bearer t' },
      body: 'payload',
    });
  });

  it('returns error statuses as replies, not errors', async () => {
    expect(await fetchVia(granted(), `${main.origin}/missing`)).toMatchObject({
      status: 404,
      body: 'not found',
    });
  });
});

describe('fetch denials name the permission and the config key', () => {
  it('a host the plugin did not declare', async () => {
    const p = provider('.', { net: ['api.example.com'] }, { net: ['api.example.com', main.host] });
    const before = main.requests.length;
    await expect(fetchVia(p, `${main.origin}/hello`)).rejects.toThrow(
      `ctx.fetch to "${main.host}" is not allowed: plugin "demo" must declare permissions.net ["${main.host}"] ` +
        `and config must grant it at plugins.demo.grants.net`,
    );
    expect(main.requests.length).toBe(before);
  });

  it('a host the plugin declared but config did not grant', async () => {
    const p = provider('.', { net: [main.host] }, {});
    await expect(fetchVia(p, `${main.origin}/hello`)).rejects.toThrow(
      `ctx.fetch to "${main.host}" is not allowed: plugin "demo" declares permissions.net ["${main.host}"] ` +
        `but config does not grant it; add "${main.host}" to plugins.demo.grants.net`,
    );
  });

  it('the same host on another port says which port, not "must declare"', async () => {
    const p = provider('.', { net: [main.host] }, { net: [main.host] });
    await expect(fetchVia(p, `${other.origin}/hello`)).rejects.toThrow(
      `ctx.fetch to "${other.host}" is not allowed: plugin "demo" declares permissions.net ["${main.host}"], ` +
        `which is another port; for port ${other.host.split(':')[1]} declare "${other.host}" in permissions.net and grant it at plugins.demo.grants.net`,
    );
    expect(other.requests).toEqual([]);
  });

  it('a host declared and granted without its port says that a bare host means the default port', async () => {
    const p = provider('.', { net: ['127.0.0.1'] }, { net: ['127.0.0.1'] });
    const before = main.requests.length;
    await expect(fetchVia(p, `${main.origin}/hello`)).rejects.toThrow(
      `ctx.fetch to "${main.host}" is not allowed: plugin "demo" declares permissions.net ["127.0.0.1"] without a port, ` +
        `which allows only the default port (80 for http:, 443 for https:); for port ${main.host.split(':')[1]} declare "${main.host}" ` +
        'in permissions.net and grant it at plugins.demo.grants.net',
    );
    expect(main.requests.length).toBe(before);
  });
});

describe('wildcard hosts', () => {
  const transport = fakeTransport();
  const fake = { resolve: resolver({}, [PUBLIC_IP]), transport };
  const grants: PluginGrants = { net: ['*.example.com'] };

  it('a granted wildcard allows subdomains but not the apex', async () => {
    const p = provider('.', { net: ['*.example.com'] }, grants, fake);
    expect(await p.invoke('fetch', { url: 'https://api.example.com/x' }, live())).toMatchObject({
      body: 'ok',
    });
    expect(await p.invoke('fetch', { url: 'https://a.b.EXAMPLE.com/' }, live())).toMatchObject({
      status: 200,
    });
    await expect(p.invoke('fetch', { url: 'https://example.com/' }, live())).rejects.toThrow(
      'ctx.fetch to "example.com" is not allowed: plugin "demo" must declare permissions.net ["example.com"]',
    );
    await expect(p.invoke('fetch', { url: 'https://api.example.com:8443/' }, live())).rejects.toThrow(
      'ctx.fetch to "api.example.com:8443" is not allowed',
    );
    expect(transport.sent.map((request) => request.url.href)).toEqual([
      'https://api.example.com/x',
      'https://a.b.example.com/',
    ]);
  });

  it('a wildcard grant covers a declared exact host, and only that host', async () => {
    const p = provider('.', { net: ['api.example.com'] }, grants, fake);
    expect(p.effective.net).toEqual(['api.example.com']);
    await expect(p.invoke('fetch', { url: 'https://www.example.com/' }, live())).rejects.toThrow(
      'plugin "demo" must declare permissions.net ["www.example.com"]',
    );
  });

  it('a declared wildcard under an exact grant is not granted', async () => {
    const p = provider('.', { net: ['*.example.com'] }, { net: ['api.example.com'] }, fake);
    await expect(p.invoke('fetch', { url: 'https://api.example.com/' }, live())).rejects.toThrow(
      'plugin "demo" declares permissions.net ["*.example.com"] but config does not grant it; add "*.example.com" ' +
        'to plugins.demo.grants.net',
    );
  });
});

describe('redirects', () => {
  it('a redirect to a host that is not granted is refused, naming that host', async () => {
    await expect(fetchVia(granted(), `${main.origin}/to-other`)).rejects.toThrow(
      `ctx.fetch to "${other.host}" (redirected from "${main.host}") is not allowed: plugin "demo" declares ` +
        `permissions.net ["${main.host}"], which is another port; for port ${other.host.split(':')[1]} declare ` +
        `"${other.host}" in permissions.net and grant it at plugins.demo.grants.net`,
    );
    expect(other.requests).toEqual([]);
  });

  it('a redirect to a granted host is followed', async () => {
    const reply = await fetchVia(granted([other.host]), `${main.origin}/to-other`);
    expect(reply).toMatchObject({ url: `${other.origin}/hello`, status: 200, body: 'from other' });
  });

  it('drops credentials when a redirect changes origin', async () => {
    const reply = await fetchVia(granted([other.host]), `${main.origin}/to-other-echo`, {
      method: 'PUT',
      headers: { authorization: 'Bearer secret', cookie: 'c=1', 'x-keep': 'k' },
      body: 'kept by 307',
    });
    const seen = JSON.parse(reply.body) as { method: string; headers: Record<string, string>; body: string };
    expect(seen).toMatchObject({ method: 'PUT', body: 'kept by 307', headers: { 'x-keep': 'k' } });
    expect(seen.headers.authorization).toBeUndefined();
    expect(seen.headers.cookie).toBeUndefined();
  });

  it('a 303 after a POST becomes a GET without the body', async () => {
    const reply = await fetchVia(granted(), `${main.origin}/see-other`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'dropped',
    });
    const seen = JSON.parse(reply.body) as { method: string; headers: Record<string, string>; body: string };
    expect(seen).toMatchObject({ method: 'GET', body: '' });
    expect(seen.headers['content-type']).toBeUndefined();
  });

  it('a chain longer than fetchMaxRedirects is refused, naming the limit', async () => {
    const before = main.requests.length;
    await expect(fetchVia(granted([], { fetchMaxRedirects: 3 }), `${main.origin}/loop/0`)).rejects.toThrow(
      `ctx.fetch to "${main.host}" was redirected more than 3 times (the fetchMaxRedirects limit)`,
    );
    expect(main.requests.slice(before)).toEqual(['/loop/0', '/loop/1', '/loop/2', '/loop/3']);
  });

  it('a redirect to a non-http URL or to a URL with credentials is refused', async () => {
    await expect(fetchVia(granted(), `${main.origin}/to-file`)).rejects.toThrow(
      `ctx.fetch to a file: URL (redirected from "${main.host}") is not allowed: only http: and https: URLs`,
    );
    await expect(fetchVia(granted(), `${main.origin}/with-credentials`)).rejects.toThrow(
      'credentials in the URL are refused',
    );
  });
});

describe('content codings', () => {
  it('a gzip, deflate, br or stacked body is decoded', async () => {
    for (const name of ['gzip', 'deflate', 'br', 'stacked']) {
      const reply = await fetchVia(granted(), `${main.origin}/coded/${name}`);
      expect(reply.body, name).toBe('hello, decoded');
      expect(reply.headers['content-encoding']).toBe(CODED[name]?.[0]);
    }
  });

  it('an unknown coding is passed through undecoded', async () => {
    expect(await fetchVia(granted(), `${main.origin}/coded/unknown`)).toMatchObject({
      body: 'hello, decoded',
    });
  });

  it('fetchMaxBytes counts decoded bytes, so a compression bomb stops at the cap', async () => {
    await expect(fetchVia(granted([], { fetchMaxBytes: 100_000 }), `${main.origin}/bomb`)).rejects.toThrow(
      `ctx.fetch to "${main.host}": the response body is over the fetchMaxBytes limit of 100000 bytes`,
    );
  });
});

describe('limits and cancellation', () => {
  it('a response body over fetchMaxBytes is refused, naming the limit and the key that raises it', async () => {
    await expect(fetchVia(granted([], { fetchMaxBytes: 1000 }), `${main.origin}/big`)).rejects.toThrow(
      `ctx.fetch to "${main.host}": the response body is over the fetchMaxBytes limit of 1000 bytes; ` +
        'raise plugins.demo.limits.fetchMaxBytes in the config to allow more',
    );
  });

  it('a request body over fetchMaxBytes is refused before sending', async () => {
    const before = main.requests.length;
    await expect(
      fetchVia(granted([], { fetchMaxBytes: 10 }), `${main.origin}/echo`, {
        method: 'POST',
        body: 'é'.repeat(6),
      }),
    ).rejects.toThrow(
      'the request body of 12 bytes is over the fetchMaxBytes limit of 10 bytes; raise plugins.demo.limits.fetchMaxBytes',
    );
    await expect(
      fetchVia(granted([], { fetchMaxBytes: 10 }), `${main.origin}/echo`, {
        method: 'POST',
        body: 'x'.repeat(11),
      }),
    ).rejects.toThrow(
      'options.body: is over the fetchMaxBytes limit of 10 bytes; raise plugins.demo.limits.fetchMaxBytes',
    );
    expect(main.requests.length).toBe(before);
  });

  it('a response slower than fetchTimeoutMs times out, naming the limit and the key that raises it', async () => {
    await expect(fetchVia(granted([], { fetchTimeoutMs: 200 }), `${main.origin}/slow`)).rejects.toThrow(
      `ctx.fetch to "${main.host}" timed out after 200 ms (the fetchTimeoutMs limit; ` +
        'raise plugins.demo.limits.fetchTimeoutMs in the config to allow more)',
    );
  });

  it('aborting the call aborts the request', async () => {
    const controller = new AbortController();
    const arrived = main.nextRequest();
    const pending = fetchVia(granted(), `${main.origin}/slow`, undefined, controller.signal);
    expect(await arrived).toBe('/slow');
    controller.abort();
    await expect(pending).rejects.toThrow(`ctx.fetch to "${main.host}" was aborted: the call was cancelled`);
  });

  it('an already aborted signal sends nothing', async () => {
    const before = main.requests.length;
    await expect(fetchVia(granted(), `${main.origin}/hello`, undefined, AbortSignal.abort())).rejects.toThrow(
      'ctx.fetch was aborted',
    );
    expect(main.requests.length).toBe(before);
  });
});

describe('refused requests', () => {
  it('credentials in the URL', async () => {
    const before = main.requests.length;
    await expect(fetchVia(granted(), `http://user:secret@${main.host}/hello`)).rejects.toThrow(
      `ctx.fetch to "${main.host}" is not allowed: credentials in the URL are refused; send them in a header instead`,
    );
    await expect(fetchVia(granted(), `http://user:secret@${main.host}/hello`)).rejects.not.toThrow('secret');
    expect(main.requests.length).toBe(before);
  });

  it('non-http schemes', async () => {
    for (const url of [
      'file:///etc/passwd',
      'data:text/plain,hello',
      'ftp://example.com/',
      'javascript:alert(1)',
    ]) {
      const scheme = new URL(url).protocol;
      await expect(fetchVia(granted(), url), url).rejects.toThrow(
        `ctx.fetch to a ${scheme} URL is not allowed: only http: and https: URLs can be fetched`,
      );
    }
  });

  it('a relative or malformed URL', async () => {
    await expect(fetchVia(granted(), '/hello')).rejects.toThrow(
      'ctx.fetch received invalid arguments: url: is not an absolute URL',
    );
  });

  it('forbidden headers, methods, and a body on GET', async () => {
    for (const name of ['Host', 'content-length', 'Transfer-Encoding', 'connection', 'proxy-authorization']) {
      await expect(
        fetchVia(granted(), `${main.origin}/echo`, { headers: { [name]: 'x' } }),
        name,
      ).rejects.toThrow(`ctx.fetch may not set the "${name.toLowerCase()}" header`);
    }
    for (const method of ['CONNECT', 'TRACE', 'OPTIONS', 'get\r\nX: y']) {
      await expect(fetchVia(granted(), `${main.origin}/echo`, { method }), method).rejects.toThrow(
        'options.method: must be one of DELETE, GET, HEAD, PATCH, POST, PUT',
      );
    }
    await expect(fetchVia(granted(), `${main.origin}/echo`, { body: 'x' })).rejects.toThrow(
      'a GET request cannot have a body',
    );
    await expect(
      fetchVia(granted(), `${main.origin}/echo`, { headers: { 'x-evil': 'a\r\nHost: other' } }),
    ).rejects.toThrow('options.headers.x-evil: is not a valid header value');
  });

  it('a network failure says what failed without addresses', async () => {
    const closed = await startServer((_req, res) => res.end());
    const host = closed.host;
    await closed.close();
    const p = provider('.', { net: [host] }, { net: [host] });
    await expect(p.invoke('fetch', { url: `http://${host}/` }, live())).rejects.toThrow(
      `ctx.fetch to "${host}" failed: ECONNREFUSED`,
    );
  });
});

/** A transport whose responses wait until the test lets them go; it counts requests in flight. */
function heldTransport() {
  const held: (() => void)[] = [];
  let started = 0;
  let inFlight = 0;
  let most = 0;
  let open = false;
  const waiters: { n: number; resolve: () => void }[] = [];
  const transport: FetchTransport = (request) =>
    new Promise((resolve, reject) => {
      started += 1;
      for (const waiter of waiters.filter((w) => w.n <= started)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
      inFlight += 1;
      most = Math.max(most, inFlight);
      const answer = () => {
        inFlight -= 1;
        resolve({
          status: 200,
          statusText: 'OK',
          headers: {},
          body: (async function* () {
            yield new TextEncoder().encode(request.url.pathname);
          })(),
          cancel() {},
        });
      };
      request.signal.addEventListener('abort', () => {
        inFlight -= 1;
        reject(new Error('aborted'));
      });
      if (open) answer();
      else held.push(answer);
    });
  return {
    transport,
    get started() {
      return started;
    },
    get most() {
      return most;
    },
    /** Resolves once `n` requests have reached the transport. */
    reached: (n: number) =>
      new Promise<void>((resolve) => (started >= n ? resolve() : waiters.push({ n, resolve }))),
    releaseOne: () => held.shift()?.(),
    releaseAll: () => {
      open = true;
      for (const answer of held.splice(0)) answer();
    },
  };
}

/**
 * A turn of the event loop: requests that started together (same steps, no I/O with the fake
 * resolver and transport) have all reached the transport by then, had none been held back.
 */
const settled = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('fetchConcurrency', () => {
  const net = { net: ['api.example.com'] };

  it('at most fetchConcurrency requests of one plugin are in flight; the others wait their turn and all complete', async () => {
    const held = heldTransport();
    const p = provider('.', net, net, {
      limits: { fetchConcurrency: 3 },
      resolve: resolver({}, [PUBLIC_IP]),
      transport: held.transport,
    });
    const replies = Array.from(
      { length: 20 },
      (_, i) => p.invoke('fetch', { url: `https://api.example.com/${i}` }, live()) as Promise<FetchReply>,
    );
    await held.reached(3);
    await settled();
    expect(held.started).toBe(3);
    held.releaseOne();
    await held.reached(4);
    await settled();
    expect(held.started).toBe(4);
    held.releaseAll();
    const bodies = (await Promise.all(replies)).map((reply) => reply.body);
    expect(bodies).toEqual(Array.from({ length: 20 }, (_, i) => `/${i}`));
    expect(held.most).toBe(3);
  });

  it('a request cancelled while it waits for a slot leaves the queue and never reaches the network', async () => {
    const held = heldTransport();
    const p = provider('.', net, net, {
      limits: { fetchConcurrency: 1 },
      resolve: resolver({}, [PUBLIC_IP]),
      transport: held.transport,
    });
    const first = p.invoke('fetch', { url: 'https://api.example.com/first' }, live());
    const cancel = new AbortController();
    const waiting = p.invoke('fetch', { url: 'https://api.example.com/waiting' }, cancel.signal);
    await held.reached(1);
    await settled();
    cancel.abort();
    await expect(waiting).rejects.toThrow(
      'ctx.fetch to "api.example.com" was aborted: the call was cancelled',
    );
    held.releaseAll();
    await expect(first).resolves.toMatchObject({ body: '/first' });
    expect(held.started).toBe(1);
  });

  it('defaults to 8, and must be a positive integer', async () => {
    const held = heldTransport();
    const p = provider('.', net, net, { resolve: resolver({}, [PUBLIC_IP]), transport: held.transport });
    const replies = Array.from({ length: 12 }, (_, i) =>
      p.invoke('fetch', { url: `https://api.example.com/${i}` }, live()),
    );
    await held.reached(8);
    await settled();
    expect(held.started).toBe(8);
    held.releaseAll();
    await Promise.all(replies);
    expect(() => provider('.', net, net, { limits: { fetchConcurrency: 0 } })).toThrow(
      'capability limit fetchConcurrency must be a positive integer, got 0',
    );
  });
});
