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
   * Told of every request read from the client (with the tool name, for `tools/call`) and of every
   * response sent, so that a supervisor can answer the requests in flight if this process dies
   * (see `InFlightSlots`); when not given, nothing is done per call.
   */
  readonly inFlight?: InFlightRecorder;
  /**
   * Sent to the client as a warning log message once connected, with `tools/list_changed`: a
   * restarted server says why, and that its tools may have changed.
   */
  readonly announce?: string;
}

/** What `serveStdio` tells of the requests in flight. */
export interface InFlightRecorder {
  /** A request was read; `tool` names the tool of a `tools/call`. Runs before the request is handled. */
  started(id: RequestId, tool: string | undefined): void;
  /** Its response was written. */
  answered(id: RequestId): void;
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

/** Tells `inFlight` of the requests read from the client and of the responses sent. */
function trackRequests(transport: StdioServerTransport, inFlight: InFlightRecorder): void {
  const receive = transport.onmessage;
  const send = transport.send.bind(transport);
  transport.onmessage = (message: JSONRPCMessage) => {
    if ('method' in message && 'id' in message) {
      const name = message.method === 'tools/call' ? message.params?.name : undefined;
      inFlight.started(message.id, typeof name === 'string' ? name : undefined);
    } else if ('method' in message && message.method === 'notifications/cancelled') {
      // The SDK sends no response for a cancelled request: it is not in flight any more.
      const id = message.params?.requestId;
      if (typeof id === 'string' || typeof id === 'number') inFlight.answered(id);
    }
    receive?.(message);
  };
  transport.send = (message: JSONRPCMessage) => {
    const sent = send(message);
    // After the write (synchronous on pipes, files and terminals): a process that dies in between
    // leaves the request recorded, and its client may hear twice of it, never not at all.
    if (!('method' in message) && 'id' in message && message.id !== undefined) inFlight.answered(message.id);
    return sent;
  };
}
