import { normalizeToolReturn } from '../results.js';
import type { ToolResult } from '../types.js';
import { isWellFormed, stringify } from './intrinsics.js';
import { type CallReply, type CallRequest, type HookReply, TEXT_REPLY_MARK } from './protocol.js';
import type { RegisteredTool } from './registration.js';
import { cappedStringify, issuesOf, messageOf, TOO_LARGE } from './values.js';

/** The replies of calls and hooks as they leave the isolate: each a string (protocol.ts). */

/**
 * A reply already serialized (the `ok` reply of a call: its result is serialized once, here, and
 * leaves as it is). Every other reply is an object that `seal` serializes.
 */
export type Outgoing = CallReply | HookReply | string;

/** Serializes a reply inside the isolate, under the host's time limit, capped in size. */
export function seal(reply: CallReply | HookReply, maxChars: number): string {
  try {
    return cappedStringify(reply, maxChars);
  } catch (error) {
    if (error === TOO_LARGE) return stringify({ kind: 'too-large', size: maxChars });
    return stringify({ kind: 'error', message: `the result cannot be serialized: ${messageOf(error)}` });
  }
}

/** The reply to a call whose tool returned `returned`: checked against its output schema, serialized. */
export function finishCall(tool: RegisteredTool, req: CallRequest, returned: unknown): Outgoing {
  if (typeof returned === 'string' && isWellFormed(returned)) return textReply(returned, req.maxReplyChars);
  const result: ToolResult = normalizeToolReturn(returned);
  if (tool.output !== undefined && result.structuredContent !== undefined && result.isError !== true) {
    const checked = tool.output.safeParse(result.structuredContent);
    if (!checked.success) {
      const detail = issuesOf(checked)
        .map((i) => `${i.path}: ${i.message}`)
        .join('; ');
      return {
        kind: 'error',
        message: `structuredContent does not match the tool's output schema (${detail})`,
      };
    }
  }
  // Serialized here, once: getters, proxies and toJSON run inside the time limit, not on the host.
  return `{"kind":"ok","result":${cappedStringify(result, req.maxReplyChars)}}`;
}

/**
 * The `ok` reply of a tool that returned a string: `TEXT_REPLY_MARK` and the text as it is. A
 * string has no getters, proxies or toJSON, and needs no JSON to carry it: no walk, no escaping here
 * and no parsing on the host (protocol.ts). Only a well-formed one: a lone surrogate would not
 * survive the executor's UTF-8 channel, and JSON carries it escaped.
 */
function textReply(text: string, maxChars: number): string {
  if (text.length + 1 > maxChars) throw TOO_LARGE;
  return TEXT_REPLY_MARK + text;
}

/** The reply to a call or hook that threw `error`. */
export function failure(error: unknown, maxChars: number): CallReply {
  return error === TOO_LARGE
    ? { kind: 'too-large', size: maxChars }
    : { kind: 'error', message: messageOf(error) };
}
