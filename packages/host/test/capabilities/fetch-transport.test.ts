import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { parseIp } from '../../src/capabilities/fetch-address.js';
import { nodeTransport } from '../../src/capabilities/fetch-transport.js';

// A signal aborted after its requests are done must leave the agent's pooled sockets alone: the
// bridge's tests (test/mcp/chain.test.ts, bridge.test.ts) close SDK clients that keep one signal
// for every request, and failed with uncaught AbortErrors before abortWith.
describe('nodeTransport and its request signal', () => {
  it('still ends a response whose body is being read when the signal aborts', async () => {
    const server = createServer((_req, res) => {
      res.write('first');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    try {
      const controller = new AbortController();
      const addresses = [parseIp('127.0.0.1')].filter((ip) => ip !== undefined);
      const response = await nodeTransport()({
        url: new URL(`http://127.0.0.1:${port}/`),
        addresses,
        method: 'GET',
        headers: {},
        body: undefined,
        signal: controller.signal,
      });
      const reading = (async () => {
        for await (const _chunk of response.body) controller.abort();
      })();
      await expect(reading).rejects.toMatchObject({ name: 'AbortError' });
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
