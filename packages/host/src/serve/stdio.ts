import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { ToolHost } from '../host/host.js';
import type { RequestId } from './reports.js';
import { createMcpServer, type McpServeOptions } from './server.js';

/** How `serveStdio` serves: the streams, and the session's options. */
export interface McpStdioOptions extends McpServeOptions {
  /** Where requests come from; default `process.stdin`. */
  readonly stdin?: Readable;
  /** Where answers go; default `process.stdout`. */
  readonly stdout?: Writable;
  /**
   * Filled with the requests in flight (id → tool name for `tools/call`), for a last word on a
   * crash (see `abortWithLastWords`); left alone when not given, which costs nothing per call.
   */
  readonly inFlight?: Map<RequestId, string | undefined>;
  /**
   * Sent to the client as a warning log message once connected, with `tools/list_changed`: a
   * restarted server says why, and that its tools may have changed.
   */
  readonly announce?: string;
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
    if (options.inFlight !== undefined) trackRequests(transport, options.inFlight);
    if (options.announce !== undefined) {
      // No initialize comes first: the client initialized the process this one replaces.
      await server.sendLoggingMessage({ level: 'warning', logger: 'toolhost', data: options.announce });
      await server.sendToolListChanged();
    }
  } catch (error) {
    await close().catch(() => {});
    dispose();
    throw error;
  }
  return { closed, close };
}

/** Keeps `inFlight` to the requests read from the client and not answered yet. */
function trackRequests(transport: StdioServerTransport, inFlight: Map<RequestId, string | undefined>): void {
  const receive = transport.onmessage;
  const send = transport.send.bind(transport);
  transport.onmessage = (message: JSONRPCMessage) => {
    if ('method' in message && 'id' in message) {
      const name = message.method === 'tools/call' ? message.params?.name : undefined;
      inFlight.set(message.id, typeof name === 'string' ? name : undefined);
    }
    receive?.(message);
  };
  transport.send = (message: JSONRPCMessage) => {
    if (!('method' in message) && 'id' in message && message.id !== undefined) inFlight.delete(message.id);
    return send(message);
  };
}
