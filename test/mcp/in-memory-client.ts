import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { SessionOptions, ToolHost } from '@toolhost/host';
import { createMcpServer } from '@toolhost/host/internal';

/**
 * An SDK client connected in memory to an MCP server over one session of `host` (opened with
 * `session`, e.g. a channel); `close` ends both.
 */
export async function connectInMemory(host: ToolHost, name = 'toolhost-test', session?: SessionOptions) {
  const { server, dispose } = createMcpServer(host, session === undefined ? {} : { session });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(clientSide);
  return {
    client,
    close: async () => {
      dispose();
      await client.close();
    },
  };
}
