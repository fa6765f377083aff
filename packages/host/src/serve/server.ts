import {
  type CallToolResult,
  type jsonSchemaValidator,
  type LoggingLevel,
  ProtocolErrorCode,
  type RequestId,
  Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import type { AuditPolicy, AuditSink } from '../audit/trail.js';
import type { Session, SessionOptions } from '../core/dispatch/session.js';
import {
  parentOf,
  SpanKind,
  SpanStatusCode,
  startSpan,
  traceContextOf,
  traceIdOf,
} from '../core/dispatch/telemetry.js';
import { errorResult } from '../core/wrap/results.js';
import type { CallObserver, CallOutcome } from '../core/wrap/wrapper.js';
import type { ToolHost } from '../host/host.js';
import type { InputAsker, Principal } from '../types.js';
import { registerAppResources } from './app-resources.js';
import { mcpApprover } from './approval.js';
import { type approvalStateCodec, type ModernCall, modernCall, roundEnd, roundOf } from './approval-2026.js';
import { legacyAsker, modernAsker } from './ask.js';
import type { ToolCallHandler } from './direct-calls.js';
import { type ProgressWrites, progressFlushed } from './progress-flush.js';
import { type McpPrompt, registerPrompts } from './prompts.js';
import { clientOf, ownerOf, protocolOf, traceOf } from './request-meta.js';

/** How a host is offered as an MCP server. */
export interface McpServeOptions {
  /** Options of the host session each MCP connection gets (active tools, context). */
  readonly session?: SessionOptions;
  /** Server name and version announced at initialization. */
  readonly name?: string;
  readonly version?: string;
  /**
   * Watches each `tools/call` of every connection (`toolhost dev` prints them): its log lines
   * and progress as they come, and how it ended. A refused call ends `blocked` at once.
   */
  readonly watchCall?: (call: McpCallInfo) => McpCallWatch | undefined;
  /**
   * Prompts the embedding serves beside the host's tools (`prompts/list`, `prompts/get`); their
   * `ctx.ask` takes part in the same rounds as a tool's (serve/prompts.ts). None by default.
   */
  readonly prompts?: readonly McpPrompt[];
}

/** Which call a {@link McpServeOptions.watchCall} watcher sees. */
export interface McpCallInfo {
  /** The host session of the MCP connection. */
  readonly sessionId: string;
  /** Who called (`token:<name>`, `oauth:<subject>`, `anonymous`), over HTTP. */
  readonly principal?: string;
  readonly tool: string;
  /** The JSON-RPC request id of the call, as text. */
  readonly callId: string;
  /** The arguments as the client sent them. */
  readonly input: unknown;
}

/** A watcher of one call: the observer's sinks, and its end. */
export interface McpCallWatch extends CallObserver {
  end?(outcome: CallOutcome): void;
}

const logLevels: Record<'debug' | 'info' | 'warn' | 'error', LoggingLevel> = {
  debug: 'debug',
  info: 'info',
  warn: 'warning',
  error: 'error',
};

/**
 * The SDK server builds an Ajv instance up front for validating elicitation answers, which
 * toolhost never asks for; that was the largest cost of opening a session. Built on first use.
 */
export function lazyValidator(): jsonSchemaValidator {
  let validator: AjvJsonSchemaValidator | undefined;
  return {
    getValidator: (schema) => {
      validator ??= new AjvJsonSchemaValidator();
      return validator.getValidator(schema);
    },
  };
}

/** What the 2026 tool handlers need for approvals over multi round-trip requests. */
export interface ModernApprovals {
  readonly calls: Map<string, ModernCall>;
  readonly codec: ReturnType<typeof approvalStateCodec>;
}

/** The SDK server of one MCP connection and how to let go of it. */
export interface McpConnection {
  readonly server: Server;
  readonly session: Session;
  /** The `tools/call` handler registered with `server` (stdio's direct path calls it too). */
  readonly callTool: ToolCallHandler;
  readonly dispose: () => void;
}

/** Who a connection or a 2026 session serves, and the trail its calls go to. */
export interface ServedBy {
  readonly principal?: Principal;
  readonly audit?: AuditSink;
}

/**
 * One MCP server over one host session: `tools/list` shows the session's visible, active tools;
 * `tools/call` runs through the full wrapper. A tool that does not exist, is hidden, denied or
 * inactive is a protocol error (InvalidParams) whose message says which; a failure inside a tool
 * is an `isError` result. Every swap of the host's Map sends `notifications/tools/list_changed`.
 */
export function createMcpServer(
  host: ToolHost,
  options: McpServeOptions = {},
  /** How a swap reaches the client; the HTTP transport defers it until the client listens. */
  notifyListChanged: (send: () => void) => void = (send) => send(),
  /** Who the connection serves (the HTTP endpoint authenticated them) and where its calls are recorded. */
  served: ServedBy = {},
): McpConnection {
  const { principal } = served;
  const server = new Server(
    { name: options.name ?? 'toolhost', version: options.version ?? '0.1.0' },
    {
      capabilities: {
        tools: { listChanged: true },
        logging: {},
        resources: {},
        ...(options.prompts === undefined ? {} : { prompts: {} }),
      },
      jsonSchemaValidator: lazyValidator(),
    },
  );
  // Approvals are asked of the client (elicitation), unless the embedding answers them itself.
  const calls = new Map<string, RequestId>();
  const session: Session = host.session({
    ...options.session,
    ...(principal === undefined ? {} : { principal }),
    onApproval:
      options.session?.onApproval ??
      mcpApprover({
        server,
        // The principal's `approvals.mcpClients` when its overlay sets one, else the config's.
        clients: () => session.approvalClients(),
        requestOf: (toolUseId) => calls.get(toolUseId),
      }),
  });

  const callTool = registerToolHandlers(
    server,
    session,
    options,
    () => session.approvalClients(),
    calls,
    undefined,
    served.audit,
  );
  registerAppResources(server, session, host, true);
  if (options.prompts !== undefined) {
    registerPrompts(server, {
      prompts: options.prompts,
      clients: () => session.approvalClients(),
      principal: session.principal?.id,
    });
  }

  const sendListChanged = () => notifyListChanged(() => void server.sendToolListChanged().catch(() => {}));
  const stop = host.on('change', sendListChanged);
  // A tool search loads deferred tools into this connection's list: the client lists again.
  const stopLoads = session.onToolsChanged(sendListChanged);
  return {
    server,
    session,
    callTool,
    dispose: () => {
      stop();
      stopLoads();
    },
  };
}

/**
 * `tools/list` and `tools/call` of `server`, over `session`: the same for both revisions. `calls`
 * maps a call's tool use id to its JSON-RPC id while it runs (a 2025 approval form rides its stream).
 */
export function registerToolHandlers(
  server: Server,
  session: Session,
  options: McpServeOptions,
  /** `approvals.mcpClients` in force: who may be sent a tool's form (`ctx.ask`). */
  clients: () => readonly string[],
  calls?: Map<string, RequestId>,
  /** 2026-07-28: the calls in flight (an approval asks through its request) and the state's seal. */
  modern?: ModernApprovals,
  audit?: AuditSink,
): ToolCallHandler {
  server.setRequestHandler('tools/list', async () => ({ tools: session.tools('mcp') as never[] }));

  const callTool: ToolCallHandler = async (request, ctx) => {
    const name = request.params.name;
    const requestId = ctx.mcpReq.id;
    const watch = options.watchCall?.({
      sessionId: session.id,
      ...(session.principal === undefined ? {} : { principal: session.principal.id }),
      tool: name,
      callId: String(requestId),
      input: request.params.arguments ?? {},
    });
    const check = session.check(name);
    const caller = traceOf(ctx).trace;
    let traceId = traceIdOf(caller);
    const record =
      audit === undefined
        ? undefined
        : (policy: AuditPolicy, status: Parameters<AuditSink['call']>[0]['status'], durationMs: number) =>
            audit.call({
              principal: session.principal?.id ?? 'local',
              ...clientOf(server, ctx),
              session: ctx.sessionId ?? session.id,
              hostSession: session.id,
              requestId: String(requestId),
              tool: name,
              ...ownerOf(session, name),
              input: request.params.arguments ?? {},
              policy,
              status,
              durationMs,
              ...(traceId === undefined ? {} : { traceId }),
            });
    // A plain Error with a code: the SDK sends its message as the JSON-RPC message as it is.
    if (!check.ok) {
      watch?.end?.({ result: errorResult(check.message), status: 'blocked', durationMs: 0 });
      record?.(check.refusal, 'refused', 0);
      throw Object.assign(new Error(check.message), { code: ProtocolErrorCode.InvalidParams });
    }
    const args = request.params.arguments ?? {};
    const running: ModernCall | undefined =
      modern === undefined ? undefined : modernCall(ctx, name, args, session.principal?.id);
    const writes: ProgressWrites = {};
    const observer = callObserver(name, ctx, watch, writes, (requests, optional) =>
      running === undefined
        ? legacyAsker(server, ctx, clients)(requests, optional)
        : modernAsker(roundOf(running), clients)(requests, optional),
    );
    const toolUseId = String(requestId);
    calls?.set(toolUseId, requestId);
    if (running !== undefined) modern?.calls.set(toolUseId, running);
    // The MCP server span of the request (its parent: the caller's traceparent); the call's
    // execute_tool span is its child.
    const span = startSpan(`tools/call ${name}`, SpanKind.SERVER, parentOf(caller), {
      'mcp.method.name': 'tools/call',
      'jsonrpc.request.id': String(requestId),
      'mcp.protocol.version': protocolOf(server, ctx),
      'gen_ai.tool.name': name,
      ...(ctx.sessionId === undefined ? {} : { 'mcp.session.id': ctx.sessionId }),
    });
    const trace = traceContextOf(span, caller);
    if (trace !== undefined) traceId = traceIdOf(trace) ?? traceId;
    let outcome: CallOutcome;
    try {
      outcome = await session.call(name, args, toolUseId, {
        signal: ctx.mcpReq.signal,
        observer,
        ...(trace === undefined ? {} : { trace }),
      });
    } finally {
      calls?.delete(toolUseId);
      modern?.calls.delete(toolUseId);
    }
    if (outcome.result.isError === true) {
      span.setAttribute('error.type', 'tool_error');
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
    watch?.end?.(outcome);
    if (writes.last !== undefined) await progressFlushed(writes, modern === undefined ? ctx : undefined);
    // The round stopped at an approval or an ask: the answers come with the retry.
    if (running !== undefined && modern !== undefined) {
      const ended = await roundEnd(running, modern.codec, name, args);
      if (ended !== undefined) {
        const asking = !('isError' in ended && ended.isError === true);
        record?.('allowed', asking ? 'input-required' : 'tool-error', outcome.durationMs);
        return ended as CallToolResult;
      }
    }
    record?.('allowed', outcome.status, outcome.durationMs);
    return toCallToolResult(outcome);
  };
  server.setRequestHandler('tools/call', callTool);
  return callTool;
}

/** An outcome as MCP's `tools/call` result. */
export function toCallToolResult({ result }: CallOutcome): CallToolResult {
  return {
    content: result.content as CallToolResult['content'],
    ...(result.isError === true ? { isError: true } : {}),
    ...(result.structuredContent === undefined ? {} : { structuredContent: result.structuredContent }),
    ...(result.meta === undefined ? {} : { _meta: result.meta }),
  };
}

/**
 * The observer of one `tools/call`: log lines and progress go to the client on the call's own
 * stream (before its response); log lines only at or above the level the client asked for
 * (`logging/setLevel` on a 2025 connection, the request's `logLevel` on 2026-07-28).
 */
function callObserver(
  name: string,
  ctx: ServerContext,
  watch: McpCallWatch | undefined,
  writes: ProgressWrites,
  ask: InputAsker,
): CallObserver {
  const progressToken = ctx.mcpReq._meta?.progressToken;
  const hook = watch?.hook;
  return {
    ask,
    ...(hook === undefined ? {} : { hook: (hookName, verdict) => hook.call(watch, hookName, verdict) }),
    log: (level, message, data) => {
      watch?.log?.(level, message, data);
      void ctx.mcpReq
        .log(logLevels[level], data === undefined ? message : { message, data }, name)
        .catch(() => {});
    },
    ...(progressToken === undefined
      ? {}
      : {
          progress: (progress: number, total?: number, message?: string) => {
            watch?.progress?.(progress, total, message);
            const params = {
              progressToken,
              progress,
              ...(total === undefined ? {} : { total }),
              ...(message === undefined ? {} : { message }),
            };
            writes.last = ctx.mcpReq
              .notify({ method: 'notifications/progress', params })
              .catch(() => {})
              .then(() => {
                writes.at = performance.now();
              });
          },
        }),
  };
}
