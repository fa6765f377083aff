import {
  type CallToolRequest,
  type CallToolResult,
  isCallToolResult,
  type JSONRPCMessage,
  type LoggingLevel,
  ProtocolErrorCode,
  type RequestId,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';

/**
 * The direct path of a 2025-11-25 stdio connection's `tools/call`.
 *
 * The SDK checks each message against its zod schemas several times on the way in and out: as a
 * response, an error, a request (all three on the way in), the call's params, the result, the
 * response again on the way out. Profiled under `toolhost serve` at 64 calls in flight, that was
 * half of the serve process's work a call (36 of its 43 µs main-thread CPU went to 15-18 without
 * it). A plain call (no progress token, no task, nothing in `_meta` but the W3C trace context)
 * needs none of it: the params are checked here, by hand, and the result when it is not plain
 * text. The call then runs through the very handler the SDK would have called, with a context
 * that does on stdio what the SDK's does; anything else takes the SDK's path.
 */

/** The `tools/call` handler a connection registers with the SDK (serve/server.ts). */
export type ToolCallHandler = (request: CallToolRequest, ctx: ServerContext) => Promise<CallToolResult>;

/** A `tools/call` the direct path serves: its id and params, as read. */
export interface DirectRequest {
  readonly id: RequestId;
  readonly params: CallToolRequest['params'];
}

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
  const { id, params } = message;
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return undefined;
  if (!isPlainObject(params) || !onlyKeys(params, PARAM_KEYS) || typeof params.name !== 'string') {
    return undefined;
  }
  if (params.arguments !== undefined && !isPlainObject(params.arguments)) return undefined;
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
 * The calls a stdio connection serves on the direct path, while they run: each can be cancelled
 * (`notifications/cancelled`, then no response, as the SDK does), and all are when the connection
 * closes.
 */
export class DirectCalls {
  readonly #server: Server;
  readonly #handler: ToolCallHandler;
  readonly #send: (message: JSONRPCMessage) => Promise<void>;
  readonly #running = new Map<RequestId, AbortController>();

  constructor(server: Server, handler: ToolCallHandler, send: (message: JSONRPCMessage) => Promise<void>) {
    this.#server = server;
    this.#handler = handler;
    this.#send = send;
  }

  /** How many calls run on the direct path now. */
  get running(): number {
    return this.#running.size;
  }

  /**
   * Serves `message` when it is a direct call of an initialized connection, and says whether it
   * did; a cancellation of a direct call aborts it (and is not taken: the SDK ignores it).
   */
  take(message: JSONRPCMessage): boolean {
    if ('method' in message && message.method === 'notifications/cancelled') {
      const params = (message as { params?: { requestId?: unknown; reason?: unknown } }).params;
      const id = params?.requestId;
      if (typeof id === 'string' || typeof id === 'number') this.#running.get(id)?.abort(params?.reason);
      return false;
    }
    // Before `initialize` the SDK answers; a duplicate id goes there too.
    if (this.#server.getClientCapabilities() === undefined) return false;
    const request = directRequestOf(message);
    if (request === undefined || this.#running.has(request.id)) return false;
    const controller = new AbortController();
    this.#running.set(request.id, controller);
    const { id } = request;
    this.#handler(
      { method: 'tools/call', params: request.params },
      directContext(this.#server, request, controller.signal),
    )
      .then(
        (result) => {
          if (controller.signal.aborted) return;
          if (isPlainText(result) || isCallToolResult(result)) {
            return this.#send({ jsonrpc: '2.0', id, result });
          }
          return this.#send(errorResponse(id, ProtocolErrorCode.InvalidParams, 'Invalid tools/call result'));
        },
        (error: unknown) => {
          if (controller.signal.aborted) return;
          const {
            code,
            message: text,
            data,
          } = (error ?? {}) as { code?: unknown; message?: unknown; data?: unknown };
          return this.#send(
            errorResponse(
              id,
              Number.isSafeInteger(code) ? (code as number) : ProtocolErrorCode.InternalError,
              typeof text === 'string' ? text : 'Internal error',
              data,
            ),
          );
        },
      )
      // The connection closed under the response: nobody is left to answer.
      .catch(() => {})
      .finally(() => {
        if (this.#running.get(id) === controller) this.#running.delete(id);
      });
    return true;
  }

  /** The connection closed: every call still running is aborted. */
  close(): void {
    for (const controller of this.#running.values()) controller.abort(new Error('the connection closed'));
    this.#running.clear();
  }
}

function errorResponse(id: RequestId, code: number, message: string, data?: unknown): JSONRPCMessage {
  return { jsonrpc: '2.0', id, error: { code, message, ...(data === undefined ? {} : { data }) } };
}
