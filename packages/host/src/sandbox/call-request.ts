import type { CallRequest, LogCaps } from '@toolhost/plugin-sdk/protocol';

/** What a call request holds besides its tool's and plugin's settings. */
export interface CallOfTool {
  readonly callId: string;
  readonly toolUseId: string;
  readonly sessionId: string;
  readonly input: unknown;
}

/** A tool's settings in its calls' requests: the same in each of them. */
export type ToolCallSettings = Omit<CallRequest, keyof CallOfTool | 'logs'> & { readonly logs: LogCaps };

/** The JSON of a request's settings, made once per tool; a symbol, so `JSON.stringify` skips it. */
const SETTINGS_JSON = Symbol('toolhost.callSettingsJson');

interface PreparedRequest extends CallRequest {
  readonly [SETTINGS_JSON]?: string;
}

/**
 * The requests of one tool's calls: the settings (the tool's name, the plugin's config, env and
 * caps) serialized once, here, and each request then serialized around them
 * ({@link callRequestJson}). Those settings are a third of a quick call's request and were ≈ 0.5 µs of
 * its host-side JSON.stringify (a CPU profile of bench/boundary.mjs's inline echo).
 */
export function callRequests(settings: ToolCallSettings): (call: CallOfTool) => CallRequest {
  const { toolName, config, env, envGranted, maxReplyChars, logs } = settings;
  const json = JSON.stringify({ toolName, config, env, envGranted, maxReplyChars, logs }).slice(1, -1);
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
      [SETTINGS_JSON]: json,
    };
    return request;
  };
}

/**
 * A call request's JSON for the isolate: around its settings' JSON when {@link callRequests} made
 * it, else whole. Parses to what `JSON.stringify(request)` would give.
 */
export function callRequestJson(request: CallRequest): string {
  const settings = (request as PreparedRequest)[SETTINGS_JSON];
  const input = request.input === undefined ? undefined : JSON.stringify(request.input);
  if (settings === undefined || input === undefined) return JSON.stringify(request);
  return `{"callId":${JSON.stringify(request.callId)},"toolUseId":${JSON.stringify(request.toolUseId)},"sessionId":${JSON.stringify(request.sessionId)},"input":${input},${settings}}`;
}
