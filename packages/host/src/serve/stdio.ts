import type { Readable, Writable } from 'node:stream';
import {
  type JSONRPCMessage,
  type MessageExtraInfo,
  parseJSONRPCMessage,
  STDIO_DEFAULT_MAX_BUFFER_SIZE,
  type Transport,
  type TransportSendOptions,
} from '@modelcontextprotocol/server';
import { StdioServerTransport, serveStdio as serveStdioEntry } from '@modelcontextprotocol/server/stdio';
import { sandboxSettingOf } from '../config/sandbox.js';
import type { ToolHost } from '../host/host.js';
import { HotLoop } from '../util/hot-loop.js';
import { type CoalescingWritable, coalescing } from './coalescing.js';
import { DirectCalls, directRequestOf } from './direct-calls.js';
import { createModernServer, createModernServing, type ModernServing } from './modern.js';
import { checkOption } from './option-check.js';
import type { RequestId } from './reports.js';
import { createMcpServer, type McpServeOptions } from './server.js';
import { LineReader } from './stdio-lines.js';
import { warmForServing } from './warm.js';

/** How `serveStdio` serves: the streams, and the session's options. */
export interface McpStdioOptions extends McpServeOptions {
  /** Where requests come from; default `process.stdin`. */
  readonly stdin?: Readable;
  /** Where answers go; default `process.stdout`. */
  readonly stdout?: Writable;
  /**
   * Sent to the client as a warning log message once connected, with `tools/list_changed`: a
   * restarted server says why, and that its tools may have changed.
   */
  readonly announce?: string;
  /**
   * The early answers' handover (early-stdio.ts): the id of the client's `initialize`, replayed
   * on `stdin` to this server, whose response must not reach the client a second time; and
   * whether the list the client was answered with differs from the host's (then `list_changed`).
   */
  readonly handover?: { readonly initializeId?: string | number; readonly listChanged: boolean };
  /**
   * How many plain `tools/call` requests of a 2025-11-25 connection (those of the direct path,
   * direct-calls.ts) run at once: default 256 (`MAX_RUNNING_CALLS`), `Infinity` for no bound.
   * More wait, in the order read, until one ends. Every other message is handled at once, a
   * client's answer to a running call's question included; a call that takes the SDK's path (a
   * progress token, a task) is not counted and runs at once.
   */
  readonly maxRunningCalls?: number;
}

/**
 * What `serveStdioRecorded` tells of the requests in flight: every request read from the client
 * (with the tool name, for `tools/call`) and every response sent, so that a supervisor can answer
 * the requests in flight if this process dies (see `InFlightSlots`).
 */
export interface InFlightRecorder {
  /** A request was read; `tool` names the tool of a `tools/call`. Runs before the request is handled. */
  started(id: RequestId, tool: string | undefined): void;
  /** Its response was written. */
  answered(id: RequestId): void;
  /**
   * The tool a `tools/call` read before runs, from now on: none while it waits its turn
   * (`maxRunningCalls`), its own once it starts. A crash then names only the tools that ran.
   */
  calling(id: RequestId, tool: string | undefined): void;
}

/**
 * Serves a host over stdio: stdout carries protocol only, so everything else must log to stderr.
 * The SDK's entry decides each connection's revision from its first message (`initialize`: 2025,
 * an enveloped request such as `server/discover`: 2026-07-28) and pins one server to it. Resolves
 * once listening. The connection ends on `close()` or when stdin ends; either way the host
 * listeners and the stdin listeners are removed, and `closed` resolves.
 */
export function serveStdio(
  host: ToolHost,
  options: McpStdioOptions = {},
): Promise<{ close: () => Promise<void>; closed: Promise<void> }> {
  return serveStdioRecorded(host, options, undefined);
}

/**
 * `serveStdio`, telling `inFlight` of each request and response (the supervised `toolhost serve`;
 * internal): when it is undefined, nothing is done per call.
 */
export async function serveStdioRecorded(
  host: ToolHost,
  options: McpStdioOptions,
  inFlight: InFlightRecorder | undefined,
): Promise<{
  close: () => Promise<void>;
  closed: Promise<void>;
  pollTurns: () => number;
  /** How many `tools/call` requests the direct path took (direct-calls.ts). */
  directCalls: () => number;
}> {
  const { maxRunningCalls } = options;
  checkOption('serveStdio', 'maxRunningCalls', maxRunningCalls, Number.POSITIVE_INFINITY);
  warmForServing(host);
  const stdin = options.stdin ?? process.stdin;
  const out = coalescing(options.stdout ?? process.stdout);
  /** Until the connection ends: no polling after it. */
  let open = true;
  const wire = new WireTransport(
    new StdioServerTransport(stdin, out),
    out,
    inFlight,
    options.handover?.initializeId,
    new HotLoop(sandboxSettingOf(host.config).pollMicros, () => open),
  );
  const disposers = new Set<() => void>();
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  let handle: { close(): Promise<void> } | undefined;
  const close = async () => {
    await handle?.close();
  };
  const inputEnded = () => void close().catch(() => {});
  wire.closed = () => {
    open = false;
    stdin.off('end', inputEnded);
    stdin.off('close', inputEnded);
    for (const dispose of disposers) dispose();
    disposers.clear();
    resolveClosed();
  };
  stdin.once('end', inputEnded);
  stdin.once('close', inputEnded);
  let modern: ModernServing | undefined;
  const modernServing = () => {
    if (modern !== undefined) return modern;
    modern = createModernServing(host, options);
    disposers.add(modern.dispose);
    return modern;
  };
  /** A 2026 connection: the entry turns list changes into notifications on its listen streams. */
  const modernConnection = (serving: ModernServing) => {
    const server = createModernServer(serving);
    const stop = host.on('change', () => void server.sendToolListChanged().catch(() => {}));
    return { server, dispose: stop };
  };
  /** A 2025 connection: its plain `tools/call` requests take the direct path (direct-calls.ts). */
  const legacyConnection = () => {
    const { server, dispose, callTool } = createMcpServer(host, options);
    const direct = new DirectCalls(
      server,
      callTool,
      (message) => wire.send(message),
      (message) => wire.handOn(message),
      options.announce !== undefined,
      {
        max: maxRunningCalls,
        ...(inFlight === undefined
          ? {}
          : {
              waits: (id: RequestId) => inFlight.calling(id, undefined),
              starts: (id: RequestId, tool: string) => inFlight.calling(id, tool),
            }),
      },
    );
    wire.direct = direct;
    return {
      server,
      dispose: () => {
        if (wire.direct === direct) wire.direct = undefined;
        direct.close();
        dispose();
      },
    };
  };
  handle = serveStdioEntry(
    ({ era }) => {
      const { server, dispose } = era === 'modern' ? modernConnection(modernServing()) : legacyConnection();
      disposers.add(dispose);
      // The entry discards the instance that answered a `server/discover` probe of a client that
      // then initialized: its host listeners go with it.
      server.onclose = () => {
        disposers.delete(dispose);
        dispose();
      };
      return server;
    },
    { transport: wire, onerror: () => {} },
  );
  if (options.handover?.listChanged === true) {
    await wire.send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
  }
  if (options.announce !== undefined) {
    // No initialize comes first: the client initialized the process this one replaces.
    await wire.send({
      jsonrpc: '2.0',
      method: 'notifications/message',
      params: { level: 'warning', logger: 'toolhost', data: options.announce },
    });
    await wire.send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
  }
  return { closed, close, pollTurns: () => wire.hot.turns, directCalls: () => wire.directCalls };
}

/**
 * The stdio transport the entry owns, telling `inFlight` of the requests read from the client and
 * of the responses sent, and this module of the end of the connection.
 */
class WireTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
  closed: () => void = () => {};
  readonly #inner: StdioServerTransport;
  readonly #out: CoalescingWritable;
  readonly #inFlight: InFlightRecorder | undefined;
  /** The replayed `initialize` the client already had an answer to (early-stdio.ts). */
  #answered: string | number | undefined;
  /**
   * Polls for the client's next request a while after each response (`sandbox.pollMicros` at
   * most; util/hot-loop.ts): a client calling tool after tool then writes to a process that is
   * awake. What it bought depends on where the scheduler puts the processes: with serve, its
   * executor and the client on separate CPUs (a scratch script, three rounds of 4,000 sequential
   * calls, before the windows adapted), p50 216-266 µs with the host and the executor polling,
   * 155-209 with serve polling too (272-309 with none); interleaved with other paths, where this
   * VM packs them onto one CPU (bench/polling.mjs), nothing either way (1.00-1.05×).
   */
  readonly hot: HotLoop;
  /** The direct path of the 2025-11-25 connection's `tools/call` (direct-calls.ts). */
  direct: DirectCalls | undefined;
  /** How many requests the direct path took. */
  directCalls = 0;

  constructor(
    inner: StdioServerTransport,
    out: CoalescingWritable,
    inFlight: InFlightRecorder | undefined,
    answered: string | number | undefined,
    hot: HotLoop,
  ) {
    this.#inner = inner;
    this.#out = out;
    this.#inFlight = inFlight;
    this.#answered = answered;
    this.hot = hot;
    // The lines are read here, not by the SDK's transport, whose reading checks every message
    // against its JSON-RPC schema: a direct call (direct-calls.ts) needs only `JSON.parse` and
    // its own checks. Every other message gets the SDK's check, as before, before it is handled.
    const lines = new LineReader(STDIO_DEFAULT_MAX_BUFFER_SIZE);
    inner._ondata = (chunk: Buffer) => {
      let read: string[];
      try {
        read = lines.push(chunk);
      } catch (error) {
        this.onerror?.(error as Error);
        void inner.close().catch(() => {});
        return;
      }
      for (const line of read) this.#line(line);
    };
    inner.onerror = (error) => this.onerror?.(error);
    inner.onclose = () => {
      // The connection's dispose (its disposers) closes the direct path, aborting its calls.
      this.onclose?.();
      this.closed();
    };
  }

  /** One line from the client: a message, handled as the SDK's transport would hand it on. */
  #line(line: string): void {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      // As the SDK's transport does: a line that is no JSON is skipped.
      return;
    }
    try {
      const request = directRequestOf(value);
      const message = request !== undefined ? (value as JSONRPCMessage) : parseJSONRPCMessage(value);
      this.hot.heard();
      if (this.#inFlight !== undefined) track(message, this.#inFlight);
      // A cancellation of a direct call is seen here too (and handed on).
      if (this.direct?.take(message, request) === true) {
        this.directCalls += 1;
        return;
      }
      this.onmessage?.(request !== undefined ? parseJSONRPCMessage(value) : message);
    } catch (error) {
      this.onerror?.(error as Error);
    }
  }

  /** A direct call's message, handed to the SDK after all, to answer with its outcome. */
  handOn(message: JSONRPCMessage): void {
    try {
      this.onmessage?.(parseJSONRPCMessage(message));
    } catch (error) {
      this.onerror?.(error as Error);
    }
  }

  start(): Promise<void> {
    return this.#inner.start();
  }

  send(message: JSONRPCMessage, _options?: TransportSendOptions): Promise<void> {
    if (
      this.#answered !== undefined &&
      !('method' in message) &&
      'id' in message &&
      message.id === this.#answered
    ) {
      this.#answered = undefined;
      this.#inFlight?.answered(message.id);
      return Promise.resolve();
    }
    const sent = this.#inner.send(message);
    if (!('method' in message)) this.hot.keep();
    // After the write (synchronous on pipes, files and terminals; the one its turn's messages
    // share): a process that dies in between leaves the request recorded, and its client may hear
    // twice of it, never not at all.
    const inFlight = this.#inFlight;
    if (inFlight !== undefined && !('method' in message) && 'id' in message && message.id !== undefined) {
      const id = message.id;
      this.#out.afterWrite(() => inFlight.answered(id));
    }
    return sent;
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}

function track(message: JSONRPCMessage, inFlight: InFlightRecorder): void {
  if ('method' in message && 'id' in message) {
    const name = message.method === 'tools/call' ? message.params?.name : undefined;
    inFlight.started(message.id, typeof name === 'string' ? name : undefined);
  } else if ('method' in message && message.method === 'notifications/cancelled') {
    // The SDK sends no response for a cancelled request: it is not in flight any more.
    const id = message.params?.requestId;
    if (typeof id === 'string' || typeof id === 'number') inFlight.answered(id);
  }
}
