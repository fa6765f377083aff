import type { CallRequest } from '@toolhost/plugin-sdk/protocol';

/**
 * The request of call `n` of `toolName` as the host sends it into an isolate: ids `c<n>` and
 * `t<n>`, session `s`, no config, no environment.
 */
export function callRequest(
  n: number,
  toolName: string,
  input: unknown,
  maxReplyChars = 10_000,
): CallRequest {
  return {
    callId: `c${n}`,
    toolName,
    toolUseId: `t${n}`,
    sessionId: 's',
    input,
    config: null,
    env: {},
    envGranted: [],
    maxReplyChars,
  };
}
