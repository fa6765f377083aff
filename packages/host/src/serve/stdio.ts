import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { ToolHost } from '../host/host.js';
import { createMcpServer, type McpServeOptions } from './server.js';

/** How `serveStdio` serves: the streams, and the session's options. */
export interface McpStdioOptions extends McpServeOptions {
  /** Where requests come from; default `process.stdin`. */
  readonly stdin?: Readable;
  /** Where answers go; default `process.stdout`. */
  readonly stdout?: Writable;
}

/**
 * Serves a host over stdio: stdout carries protocol only, so everything else must log to stderr.
 * Resolves once connected. The session ends on `close()` or when stdin ends; either way the host
 * listener and the stdin listeners are removed, and `closed` resolves.
 */
export async function serveStdio(
  host: ToolHost,
  options: McpStdioOptions = {},
): Promise<{ close: () => Promise<void>; closed: Promise<void> }> {
  const stdin = options.stdin ?? process.stdin;
  const { server, dispose } = createMcpServer(host, options);
  const transport = new StdioServerTransport(stdin, options.stdout ?? process.stdout);
  const close = () => server.close();
  const inputEnded = () => void close().catch(() => {});
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => {
      stdin.off('end', inputEnded);
      stdin.off('close', inputEnded);
      dispose();
      resolve();
    };
  });
  stdin.once('end', inputEnded);
  stdin.once('close', inputEnded);
  try {
    await server.connect(transport);
  } catch (error) {
    await close().catch(() => {});
    dispose();
    throw error;
  }
  return { closed, close };
}
