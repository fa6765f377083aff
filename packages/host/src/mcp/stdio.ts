import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { ToolHost } from '../host.js';
import { createMcpServer, type McpServeOptions } from './server.js';

/**
 * Serves a host over stdio: stdout carries protocol only, so everything else must log to stderr.
 * Resolves once connected; `close()` ends the connection.
 */
export async function serveStdio(
  host: ToolHost,
  options: McpServeOptions = {},
): Promise<{ close: () => Promise<void>; closed: Promise<void> }> {
  const { server, dispose } = createMcpServer(host, options);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => {
      dispose();
      resolve();
    };
  });
  await server.connect(transport);
  return {
    closed,
    close: async () => {
      await server.close();
    },
  };
}
