import {
  type CallRequest,
  type CallSettings,
  type LogCaps,
  REQUEST_SETTINGS_SEPARATOR,
} from '@toolhost/plugin-sdk/protocol';

/** What a call request holds besides its tool's and plugin's settings. */
export interface CallOfTool {
  readonly callId: string;
  readonly toolUseId: string;
  readonly sessionId: string;
  readonly input: unknown;
}

/** A plugin's settings in its tools' call requests: the same in each of them. */
export type PluginCallSettings = Omit<CallRequest, keyof CallOfTool | 'toolName' | 'logs'> & {
  readonly logs: LogCaps;
};

/** A request's parts made once per tool; a symbol, so `JSON.stringify` skips it. */
const PREPARED = Symbol('toolhost.preparedCall');

interface PreparedRequest extends CallRequest {
  readonly [PREPARED]?: { readonly tool: string; readonly settings: string };
}

/**
 * The requests of a plugin's tools' calls, their settings serialized once per plugin, here: its
 * config (a JSON member, beside the tool's name, made once per tool), and its env, grants and caps
 * (a JSON text of their own, protocol.ts `CallSettings`). Each request is then serialized around
 * them ({@link callRequestJson}). Those settings were two thirds of a quick call's request: ≈ 0.5 µs
 * of its JSON.stringify here and 0.4 µs of its JSON.parse in the isolate, which now parses them
 * when they change.
 */
export function callRequests(
  settings: PluginCallSettings,
): (toolName: string) => (call: CallOfTool) => CallRequest {
  const { config, env, envGranted, maxReplyChars, logs } = settings;
  const shared: CallSettings = {
    env,
    envGranted,
    maxReplyChars,
    // What the runtime reads of the caps; the per-minute ones are the host's (log-budget.ts).
    logs: { linesPerCall: logs.linesPerCall, bytesPerCall: logs.bytesPerCall, lineBytes: logs.lineBytes },
  };
  const settingsJson = JSON.stringify(shared);
  // The runtime reads a config of null as none (registration.ts `parseConfig`).
  const configJson = JSON.stringify(config ?? null);
  return (toolName) => {
    const prepared = {
      tool: `"toolName":${JSON.stringify(toolName)},"config":${configJson}`,
      settings: settingsJson,
    };
    // Written out, not spread: a literal of known shape is one allocation.
    return ({ callId, toolUseId, sessionId, input }) => {
      const request: PreparedRequest = {
        callId,
        toolName,
        toolUseId,
        sessionId,
        input,
        config,
        env,
        envGranted,
        maxReplyChars,
        logs,
        [PREPARED]: prepared,
      };
      return request;
    };
  };
}

/**
 * A call request as the runtime reads it (protocol.ts, `RuntimeEntry.begin`): when
 * {@link callRequests} made it, the call's own JSON, a newline and its settings' JSON (made once);
 * else the whole request's JSON.
 */
export function callRequestJson(request: CallRequest): string {
  const prepared = (request as PreparedRequest)[PREPARED];
  const input = request.input === undefined ? undefined : JSON.stringify(request.input);
  if (prepared === undefined || input === undefined) return JSON.stringify(request);
  return `{"callId":${JSON.stringify(request.callId)},"toolUseId":${JSON.stringify(request.toolUseId)},"sessionId":${JSON.stringify(request.sessionId)},"input":${input},${prepared.tool}}${REQUEST_SETTINGS_SEPARATOR}${prepared.settings}`;
}
