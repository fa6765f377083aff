import { freeze, lastIndexOf, parse, slice } from './intrinsics.js';
import {
  type CallRequest,
  type CallSettings,
  type HookRequest,
  REQUEST_SETTINGS_SEPARATOR,
} from './protocol.js';

/** The settings the last call came with, as text and as read: most calls bring the same again. */
let lastText: string | undefined;
let last: CallSettings | undefined;

function settingsOf(text: string): CallSettings {
  if (last === undefined || text !== lastText) {
    const read = parse(text) as CallSettings;
    // Shared by every call that brings them; no plugin code is handed them, and none may change them.
    freeze(read.env);
    freeze(read.envGranted);
    if (read.logs !== undefined) freeze(read.logs);
    last = freeze(read);
    lastText = text;
  }
  return last;
}

/**
 * A call's or hook's request from its JSON (protocol.ts, `RuntimeEntry.begin`): one JSON text, or
 * a call's own members and its settings, which are parsed again only when they changed.
 */
export function readRequest(json: string): CallRequest & HookRequest {
  // From the end: the settings are short, a call's input may be megabytes (and a JSON text holds
  // no raw newline, so the last one is the separator).
  const cut = lastIndexOf(json, REQUEST_SETTINGS_SEPARATOR);
  if (cut < 0) return parse(json) as CallRequest & HookRequest;
  const request = parse(slice(json, 0, cut)) as Record<string, unknown>;
  const settings = settingsOf(slice(json, cut + 1));
  request.env = settings.env;
  request.envGranted = settings.envGranted;
  request.maxReplyChars = settings.maxReplyChars;
  request.logs = settings.logs;
  return request as unknown as CallRequest & HookRequest;
}
