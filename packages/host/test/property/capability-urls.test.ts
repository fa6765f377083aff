import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isCapabilityError } from '../../src/capabilities/errors.js';
import type { FetchTransport, TransportRequest } from '../../src/capabilities/fetch-transport.js';
import { live, PUBLIC_IP, provider, resolver } from '../capabilities/helpers.js';

/** Hosts: granted ones, a granted name that rebinds to loopback, others, and odd notations. */
const HOSTS = [
  'api.example.test',
  'API.Example.Test.',
  'a.good.test',
  'rebind.good.test',
  'good.test',
  'evil.test',
  'api.example.test.evil.test',
  'api.example.test@evil.test',
  'evil.test#@api.example.test',
  '127.0.0.1',
  '0x7f.1',
  '2130706433',
  '[::1]',
  '[::ffff:127.0.0.1]',
  '169.254.169.254',
  '93.184.215.14',
  'xn--pple-43d.test',
  'ａｐｉ.example.test',
  '',
];
const SCHEMES = [
  'http://',
  'https://',
  'HTTP://',
  'file://',
  'ftp://',
  'data:',
  'javascript:',
  '//',
  'http:/',
  '',
];
const PORTS = ['', ':80', ':443', ':8080', ':0', ':65536', ':'];
const PATHS = [
  '',
  '/',
  '/x?y=1',
  '/redirect/0',
  '/redirect/1',
  '/redirect/2',
  '/redirect/3',
  '/%2e%2e/',
  '/\u0000',
  '/#frag',
];
/** Where a `/redirect/<n>` answer sends the next hop. */
const REDIRECTS = [
  'http://127.0.0.1/admin',
  'https://rebind.good.test/',
  '//evil.test/',
  'http://a.good.test/ok',
];

const GRANT = ['api.example.test', '*.good.test'];
const ALLOWED_HOSTS = /^(api\.example\.test|[^.]+\.good\.test)$/;

/** Answers 200, or a redirect on `/redirect/<n>`, and records every hop it was asked for. */
function redirectingTransport(): FetchTransport & { sent: TransportRequest[] } {
  const sent: TransportRequest[] = [];
  const transport: FetchTransport = async (request) => {
    sent.push(request);
    const n = /^\/redirect\/(\d)$/.exec(request.url.pathname)?.[1];
    const location = n === undefined ? undefined : REDIRECTS[Number(n)];
    return {
      status: location === undefined ? 200 : 302,
      statusText: location === undefined ? 'OK' : 'Found',
      headers: (location === undefined ? {} : { location }) as Record<string, string>,
      body: (async function* () {
        yield new TextEncoder().encode('ok');
      })(),
      cancel() {},
    };
  };
  return Object.assign(transport, { sent });
}

describe('ctx.fetch URL arguments under generated junk', () => {
  it('answers or refuses with a coded error, and never connects outside the grant or to a special address', async () => {
    const transport = redirectingTransport();
    const p = provider(
      '/nonexistent-root',
      { net: GRANT },
      { net: GRANT },
      {
        resolve: resolver(
          { 'api.example.test': [PUBLIC_IP], 'a.good.test': [PUBLIC_IP], 'rebind.good.test': ['127.0.0.1'] },
          ['10.0.0.7'],
        ),
        transport,
      },
    );
    const url = fc.oneof(
      fc
        .tuple(
          fc.constantFrom(...SCHEMES),
          fc.constantFrom(...HOSTS),
          fc.constantFrom(...PORTS),
          fc.constantFrom(...PATHS),
        )
        .map((parts) => parts.join('')),
      fc.string({ maxLength: 60 }),
      // Aimed at the grant, so answers and redirects are exercised as well as refusals.
      fc
        .tuple(
          fc.constantFrom('http://', 'https://'),
          fc.constantFrom('api.example.test', 'a.good.test'),
          fc.constantFrom(...PATHS),
        )
        .map((parts) => parts.join('')),
    );
    const options = fc.oneof(
      fc.constant(undefined),
      fc.record(
        {
          method: fc.constantFrom('GET', 'POST', 'CONNECT', 'TRACE', 'get', ' ', 'X'.repeat(20)),
          headers: fc.dictionary(
            fc.constantFrom('host', 'Host', 'x-a', 'bad header', '__proto__', ''),
            fc.string({ maxLength: 10 }),
          ),
          body: fc.string({ maxLength: 20 }),
        },
        { requiredKeys: [] },
      ),
      fc.anything({ maxDepth: 2 }),
    );
    const args = fc.oneof(
      fc.record({ url, options }, { requiredKeys: ['url'] }),
      fc.anything({ maxDepth: 2 }),
    );
    let answered = 0;

    await fc.assert(
      fc.asyncProperty(args, async (value) => {
        try {
          await p.invoke('fetch', value, live());
          answered += 1;
        } catch (error) {
          expect(isCapabilityError(error), String(error)).toBe(true);
        }
      }),
      { numRuns: 1500 },
    );

    expect(answered).toBeGreaterThan(0);
    expect(transport.sent.length).toBeGreaterThan(0);
    for (const hop of transport.sent) {
      expect(['http:', 'https:']).toContain(hop.url.protocol);
      expect(hop.url.hostname).toMatch(ALLOWED_HOSTS);
      expect(hop.addresses.map(String).join(',')).not.toBe('');
    }
    // Redirects were followed too (to the one allowed target), not only first hops.
    expect(transport.sent.some((hop) => hop.url.pathname === '/ok')).toBe(true);
    // The rebinding name and the private fallback never reach the transport.
    expect(transport.sent.some((hop) => hop.url.hostname === 'rebind.good.test')).toBe(false);
  });
});
