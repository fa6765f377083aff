import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  type LoggingLevel,
  type RequestId,
  SetLevelRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { SessionOptions } from '../core/dispatch/session.js';
import { errorResult } from '../core/wrap/results.js';
import type { CallObserver, CallOutcome } from '../core/wrap/wrapper.js';
import type { ToolHost } from '../host/host.js';
import { mcpApprover } from './approval.js';

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
}

/** Which call a {@link McpServeOptions.watchCall} watcher sees. */
export interface McpCallInfo {
  /** The host session of the MCP connection. */
  readonly sessionId: string;
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

/** MCP logging levels, least to most severe. */
const LEVELS: readonly LoggingLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];

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
function lazyValidator(): jsonSchemaValidator {
  let validator: AjvJsonSchemaValidator | undefined;
  return {
    getValidator: (schema) => {
      validator ??= new AjvJsonSchemaValidator();
      return validator.getValidator(schema);
    },
  };
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
): { server: Server; dispose: () => void } {
  let minLevel = 0; // debug: everything, until the client sets a level
  const server = new Server(
    { name: options.name ?? 'toolhost', version: options.version ?? '0.1.0' },
    { capabilities: { tools: { listChanged: true }, logging: {} }, jsonSchemaValidator: lazyValidator() },
  );
  // Approvals are asked of the client (elicitation), unless the embedding answers them itself.
  const calls = new Map<string, RequestId>();
  const session = host.session({
    ...options.session,
    onApproval:
      options.session?.onApproval ??
      mcpApprover({
        server,
        clients: () => host.config.approvals?.mcpClients ?? [],
        requestOf: (toolUseId) => calls.get(toolUseId),
      }),
  });

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: session.tools('mcp') as never[] }));

  server.setRequestHandler(SetLevelRequestSchema, async (request) => {
    minLevel = Math.max(0, LEVELS.indexOf(request.params.level));
    return {};
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const name = request.params.name;
    const watch = options.watchCall?.({
      sessionId: session.id,
      tool: name,
      callId: String(extra.requestId),
      input: request.params.arguments ?? {},
    });
    const check = session.check(name);
    // Not `new McpError(...)`: its message starts with `MCP error -32602: `, which the SDK sends
    // as the JSON-RPC message, and the client's McpError prefixes again.
    if (!check.ok) {
      watch?.end?.({ result: errorResult(check.message), status: 'blocked', durationMs: 0 });
      throw Object.assign(new Error(check.message), { code: ErrorCode.InvalidParams });
    }
    const progressToken = request.params._meta?.progressToken;
    const hook = watch?.hook;
    const observer: CallObserver = {
      ...(hook === undefined ? {} : { hook: (hookName, verdict) => hook.call(watch, hookName, verdict) }),
      // Sent on the call's own stream (before its response), only at or above the client's level.
      log: (level, message, data) => {
        watch?.log?.(level, message, data);
        if (LEVELS.indexOf(logLevels[level]) < minLevel) return;
        const params = {
          level: logLevels[level],
          logger: name,
          data: data === undefined ? message : { message, data },
        };
        void extra.sendNotification({ method: 'notifications/message', params }).catch(() => {});
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
              void extra.sendNotification({ method: 'notifications/progress', params }).catch(() => {});
            },
          }),
    };
    const toolUseId = String(extra.requestId);
    calls.set(toolUseId, extra.requestId);
    let outcome: CallOutcome;
    try {
      outcome = await session.call(name, request.params.arguments ?? {}, toolUseId, {
        signal: extra.signal,
        observer,
      });
    } finally {
      calls.delete(toolUseId);
    }
    watch?.end?.(outcome);
    const { result } = outcome;
    return {
      content: result.content as never[],
      ...(result.isError === true ? { isError: true } : {}),
      ...(result.structuredContent === undefined ? {} : { structuredContent: result.structuredContent }),
    };
  });

  const sendListChanged = () => notifyListChanged(() => void server.sendToolListChanged().catch(() => {}));
  const stop = host.on('change', sendListChanged);
  // A tool search loads deferred tools into this connection's list: the client lists again.
  const stopLoads = session.onToolsChanged(sendListChanged);
  return {
    server,
    dispose: () => {
      stop();
      stopLoads();
    },
  };
}
