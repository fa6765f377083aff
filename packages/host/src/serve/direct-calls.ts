import {
  type CallToolRequest,
  type CallToolResult,
  type JSONRPCMessage,
  type LoggingLevel,
  type RequestId,
  SdkError,
  SdkErrorCode,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';

/**
 * The direct path of a 2025-11-25 stdio connection's `tools/call`.
 *
 * The SDK checks each message against its zod schemas several times on the way in and out: as a
 * response, an error, a request (all three on the way in), the call's params, the result, the
 * response again on the way out. Profiled under `toolhost serve` at 64 calls in flight, that was
 * about half of the serve process's work: its main thread took 36 µs a call with it, 15.5-19
 * without it (and with serve reading the lines itself, stdio.ts). A plain call (no progress token, no task, nothing in `_meta` but the W3C trace context)
 * needs none of it: its params are checked here, by hand, and it runs through the very handler
 * the SDK would have called, with a context that does on stdio what the SDK's does. A plain text
 * result is sent as it is; any other outcome is handed back to the SDK to answer (`DirectCalls`),
 * so that its schema checks and shapes it. Anything else takes the SDK's path from the start.
 */

/** The `tools/call` handler a connection registers with the SDK (serve/server.ts). */
export type ToolCallHandler = (request: CallToolRequest, ctx: ServerContext) => Promise<CallToolResult>;

/** A `tools/call` the direct path serves: its id and params, as read. */
export interface DirectRequest {
  readonly id: RequestId;
  readonly params: CallToolRequest['params'];
}

const MESSAGE_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const PARAM_KEYS = new Set(['name', 'arguments', '_meta']);
/** What `_meta` may hold on the direct path: the trace context the handler reads itself. */
const META_KEYS = new Set(['traceparent', 'tracestate', 'baggage']);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function onlyKeys(value: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  for (const key of Object.keys(value)) if (!allowed.has(key)) return false;
  return true;
}

/**
 * `message` (as parsed from JSON, unchecked) when it is a JSON-RPC `tools/call` request the direct
 * path serves as the SDK would: an id that is a string or an integer, a name, arguments that are
 * an object or absent, and `_meta` holding at most the trace context. Anything else (a progress
 * token, a task, params the SDK's schema would refuse) is undefined: the SDK's path.
 */
export function directRequestOf(message: unknown): DirectRequest | undefined {
  if (!isPlainObject(message) || message.jsonrpc !== '2.0' || message.method !== 'tools/call')
    return undefined;
  // The SDK's JSON-RPC schema is strict: with another key, it refuses the message.
  if (!onlyKeys(message, MESSAGE_KEYS)) return undefined;
  const { id, params } = message;
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return undefined;
  if (!isPlainObject(params) || !onlyKeys(params, PARAM_KEYS) || typeof params.name !== 'string') {
    return undefined;
  }
  const args = params.arguments;
  // An own `__proto__` key (JSON.parse makes one), which the SDK's parse drops: its path, then.
  if (args !== undefined && (!isPlainObject(args) || Object.hasOwn(args, '__proto__'))) return undefined;
  const meta = params._meta;
  if (meta !== undefined && (!isPlainObject(meta) || !onlyKeys(meta, META_KEYS))) return undefined;
  return { id: id as RequestId, params: params as CallToolRequest['params'] };
}

/** Whether a result is plain text content, which needs no schema to be a valid `CallToolResult`. */
function isPlainText(result: CallToolResult): boolean {
  for (const key of Object.keys(result)) if (key !== 'content' && key !== 'isError') return false;
  if (result.isError !== undefined && typeof result.isError !== 'boolean') return false;
  if (!Array.isArray(result.content)) return false;
  for (const item of result.content as unknown[]) {
    if (!isPlainObject(item) || item.type !== 'text' || typeof item.text !== 'string') return false;
    for (const key of Object.keys(item)) if (key !== 'type' && key !== 'text') return false;
  }
  return true;
}

/**
 * What a handler reads of its context on a 2025-11-25 stdio connection, made without the SDK's
 * request path: the id, `_meta`, the cancellation signal; log lines at the level the client set
 * (`sendLoggingMessage` applies it, as `ctx.mcpReq.log` does) and notifications on the one stream
 * stdio has. Requests to the client (a tool's `ctx.ask`, an approval) go through the server, as
 * they do from the SDK's context.
 */
function directContext(server: Server, request: DirectRequest, signal: AbortSignal): ServerContext {
  const mcpReq = {
    id: request.id,
    method: 'tools/call',
    _meta: request.params._meta,
    signal,
    log: (level: LoggingLevel, data: unknown, logger?: string) =>
      server.sendLoggingMessage({ level, data, ...(logger === undefined ? {} : { logger }) }),
    notify: (notification: Parameters<Server['notification']>[0]) => server.notification(notification),
    send: () => Promise.reject(new Error('the direct path of tools/call sends no requests by its context')),
  };
  return { sessionId: undefined, mcpReq } as unknown as ServerContext;
}

/**
 * How many direct calls a connection runs at once, by default; a call read while that many run
 * waits for one of them to end, as its request only, and starts in the order read.
 *
 * Why: a running call holds ≈ 9 KB of the serve process's heap until it ends (heap snapshots
 * of `toolhost serve` at 5,000 calls in flight, idle and busy: 31 closures, 28 contexts, 10
 * promises, a timer, abort listeners, spans — the wrapper's, the sandbox's and the protocol's state
 * per call), and it lives across many scavenges while thousands wait for the executor: each
 * scavenge copied them, and GC took 21 % of the process's time. A waiting request is the parsed
 * message (≈ 0.3 KB). Plugin calls gain nothing from running more at once: they wait for one
 * executor. Tools that wait on I/O (`exec`, a bridged MCP server) or on a person (an approval,
 * `ctx.ask`) hold their place while they wait; a host with many such calls at once raises
 * `maxRunningCalls`. Reading is not paused: a client whose writes back up pays more than the
 * server saves (measured: throughput fell), and a running call may wait for a message of the
 * client's (an answer to its `ctx.ask`), which must still be read. Only the direct path's calls
 * are counted: a call that takes the SDK's path (a progress token, a task) runs at once.
 */
export const MAX_RUNNING_CALLS = 256;

/** How a direct call ended, for the SDK to answer when its answer is not plain text. */
type Outcome =
  | { readonly ok: true; readonly result: CallToolResult }
  | { readonly ok: false; readonly error: unknown };

/**
 * The calls a stdio connection serves on the direct path, while they run (at most `maxRunning`
 * at once, the others waiting their turn): each can be cancelled (`notifications/cancelled`, then
 * no response, as the SDK does), and all are when the connection closes.
 *
 * An outcome the direct path does not write itself (a result that is not plain text, a thrown
 * error) is handed back to the SDK: the call's message goes through the SDK's path after all,
 * and the `tools/call` handler this class registers in place of the connection's returns that
 * outcome instead of running the call again. So the SDK's 2025 result schema strips unknown keys,
 * refuses what does not fit, and encodes errors, as it always does.
 */
export class DirectCalls {
  readonly #server: Server;
  readonly #handler: ToolCallHandler;
  readonly #send: (message: JSONRPCMessage) => Promise<void>;
  readonly #replay: (message: JSONRPCMessage) => void;
  /** A process a supervisor restarted: its client initialized the process before it. */
  readonly #restarted: boolean;
  readonly #running = new Map<RequestId, AbortController>();
  /** Calls read while `#maxRunning` ran, in the order read, until each starts (or is cancelled). */
  readonly #waiting = new Map<RequestId, { message: JSONRPCMessage; request: DirectRequest }>();
  readonly #maxRunning: number;
  readonly #waits: ((id: RequestId) => void) | undefined;
  readonly #starts: ((id: RequestId, name: string) => void) | undefined;
  /** Outcomes of direct calls handed back to the SDK, until its handler call takes them. */
  readonly #outcomes = new Map<RequestId, Outcome>();
  /**
   * A message went to the SDK in this turn: the SDK starts its handler a few microtasks later, so
   * a call read after it in the same turn takes the SDK's path too, and the order the client sent
   * them in holds (a `logging/setLevel` before a call applies to the call's log lines).
   */
  #sdkTurn = false;
  readonly #turnEnded = () => {
    this.#sdkTurn = false;
  };

  constructor(
    server: Server,
    /** The connection's `tools/call` handler (`createMcpServer`'s `callTool`). */
    handler: ToolCallHandler,
    /** Sends a response to the client. */
    send: (message: JSONRPCMessage) => Promise<void>,
    /** Hands a message to the SDK, as the client sent it. */
    replay: (message: JSONRPCMessage) => void,
    /**
     * Whether this process was restarted by its supervisor: it never sees an `initialize` (its
     * client initialized the process before), and serves calls directly all the same.
     */
    restarted = false,
    running: {
      /** How many direct calls run at once; more wait their turn ({@link MAX_RUNNING_CALLS}). */
      readonly max?: number | undefined;
      /** A call read now waits its turn. */
      readonly waits?: (id: RequestId) => void;
      /** A call that waited starts, calling tool `name`. */
      readonly starts?: (id: RequestId, name: string) => void;
    } = {},
  ) {
    this.#maxRunning = running.max ?? MAX_RUNNING_CALLS;
    this.#waits = running.waits;
    this.#starts = running.starts;
    this.#server = server;
    this.#handler = handler;
    this.#send = send;
    this.#replay = replay;
    this.#restarted = restarted;
    server.setRequestHandler('tools/call', (request, ctx) => {
      const outcome = this.#outcomes.get(ctx.mcpReq.id);
      if (outcome === undefined) return handler(request, ctx);
      this.#outcomes.delete(ctx.mcpReq.id);
      return outcome.ok ? Promise.resolve(outcome.result) : Promise.reject(outcome.error);
    });
  }

  /**
   * Serves `message` when it is a direct call of an initialized connection, and says whether it
   * did; a cancellation of a direct call aborts it (and is not taken: the SDK sees it too).
   * `request` is `directRequestOf(message)`, which the caller has already read. The caller hands
   * whatever is not taken to the SDK at once.
   */
  take(message: JSONRPCMessage, request: DirectRequest | undefined): boolean {
    const taken = this.#take(message, request);
    if (!taken && !this.#sdkTurn) {
      this.#sdkTurn = true;
      setImmediate(this.#turnEnded);
    }
    return taken;
  }

  #take(message: JSONRPCMessage, request: DirectRequest | undefined): boolean {
    if ('method' in message && message.method === 'notifications/cancelled') {
      this.#cancel(message.params);
      return false;
    }
    // Before `initialize` the SDK answers; a duplicate id goes there too.
    if (
      request === undefined ||
      this.#sdkTurn ||
      this.#running.has(request.id) ||
      this.#waiting.has(request.id)
    ) {
      return false;
    }
    if (!this.#restarted && this.#server.getClientCapabilities() === undefined) return false;
    if (this.#running.size >= this.#maxRunning || this.#waiting.size > 0) {
      this.#waiting.set(request.id, { message, request });
      this.#waits?.(request.id);
    } else {
      this.#start(message, request);
    }
    return true;
  }

  /** The next waiting calls, while fewer than `#maxRunning` run. */
  #startWaiting(): void {
    for (const [id, { message, request }] of this.#waiting) {
      if (this.#running.size >= this.#maxRunning) return;
      this.#waiting.delete(id);
      this.#starts?.(id, request.params.name);
      this.#start(message, request);
    }
  }

  #start(message: JSONRPCMessage, request: DirectRequest): void {
    const controller = new AbortController();
    this.#running.set(request.id, controller);
    const { id } = request;
    const answer = (outcome: Outcome): Promise<void> | undefined => {
      if (controller.signal.aborted) return undefined;
      if (outcome.ok && isPlainText(outcome.result)) {
        return this.#send({ jsonrpc: '2.0', id, result: outcome.result });
      }
      this.#outcomes.set(id, outcome);
      this.#replay(message);
      return undefined;
    };
    let handled: Promise<CallToolResult>;
    try {
      handled = this.#handler(
        { method: 'tools/call', params: request.params },
        directContext(this.#server, request, controller.signal),
      );
    } catch (error) {
      // An async handler never throws here; one that did still answers, and frees its place.
      handled = Promise.reject(error);
    }
    handled
      .then(
        (result) => answer({ ok: true, result }),
        (error: unknown) => answer({ ok: false, error }),
      )
      // The connection closed under the response: nobody is left to answer.
      .catch(() => {})
      .finally(() => {
        if (this.#running.get(id) === controller) this.#running.delete(id);
        if (this.#waiting.size > 0) this.#startWaiting();
      });
  }

  /** A cancellation, as the SDK's schema reads it: a string or integer id, a string reason if any. */
  #cancel(params: unknown): void {
    if (!isPlainObject(params)) return;
    const { requestId, reason } = params;
    if (typeof requestId !== 'string' && !Number.isSafeInteger(requestId)) return;
    if (reason !== undefined && typeof reason !== 'string') return;
    // A waiting call never starts, and gets no response either.
    if (this.#waiting.delete(requestId as RequestId)) return;
    this.#running.get(requestId as RequestId)?.abort(reason);
  }

  /** The connection closed: every call still running is aborted, as the SDK aborts its own. */
  close(): void {
    for (const controller of this.#running.values()) {
      controller.abort(new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed'));
    }
    this.#running.clear();
    this.#waiting.clear();
    this.#outcomes.clear();
  }
}
