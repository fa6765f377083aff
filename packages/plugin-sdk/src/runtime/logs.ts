/**
 * A call's log lines inside the isolate, cut at its caps (`limits.logs`: lines and bytes per call,
 * bytes per line) before they cross to the host, where each line costs a bridge call and the
 * host's work. One call once pushed 354 MB of lines in 2 s, and one line of 32 MB. A line over
 * the caps is counted and dropped (not even formatted, for `console`), one over `lineBytes` cut;
 * when the call ends, one marker line says how many were dropped and why. The host counts again
 * and keeps the per-minute caps (packages/host/src/sandbox/log-budget.ts, same wording).
 * Bytes are UTF-8 bytes of the message and of its data's JSON.
 */
import { stringify } from './intrinsics.js';
import type { LogCaps } from './protocol.js';

/** The caps of a call whose request names none: the host's defaults. */
const DEFAULT_LOG_CAPS = { linesPerCall: 1000, bytesPerCall: 1024 * 1024, lineBytes: 16 * 1024 };
/** Bytes kept back from `bytesPerCall` (and one line from `linesPerCall`) for the marker line. */
const MARKER_BYTES = 200;

/** One call's log lines so far, against its caps. */
export interface LogBudget {
  lines: number;
  bytes: number;
  lineBytes: number;
  sentLines: number;
  sentBytes: number;
  dropped: number;
  /** The cap the first dropped line was over. */
  over: 'linesPerCall' | 'bytesPerCall' | undefined;
}

/** A budget at `caps` (the defaults where a cap is missing or not a positive number). */
export function logBudget(caps?: Partial<LogCaps>, from?: LogBudget): LogBudget {
  const cap = (value: unknown, fallback: number) =>
    typeof value === 'number' && value >= 1 ? Math.floor(value) : fallback;
  return {
    lines: cap(caps?.linesPerCall, DEFAULT_LOG_CAPS.linesPerCall),
    bytes: cap(caps?.bytesPerCall, DEFAULT_LOG_CAPS.bytesPerCall),
    lineBytes: cap(caps?.lineBytes, DEFAULT_LOG_CAPS.lineBytes),
    sentLines: from?.sentLines ?? 0,
    sentBytes: from?.sentBytes ?? 0,
    dropped: from?.dropped ?? 0,
    over: from?.over,
  };
}

function drop(budget: LogBudget, over: 'linesPerCall' | 'bytesPerCall'): false {
  budget.dropped += 1;
  budget.over ??= over;
  return false;
}

/** Whether one more line may go, checked before it is formatted; a line that may not is counted dropped. */
export function logRoom(budget: LogBudget): boolean {
  if (budget.sentLines >= budget.lines - 1) return drop(budget, 'linesPerCall');
  if (budget.sentBytes >= budget.bytes - MARKER_BYTES) return drop(budget, 'bytesPerCall');
  return true;
}

const NON_ASCII = /[^\0-\x7f]/;

/** UTF-8 bytes of `text`, without encoding it. */
function utf8Length(text: string): number {
  if (!NON_ASCII.test(text)) return text.length;
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit < 0xdc00 && i + 1 < text.length) {
      bytes += 4;
      i += 1;
    } else bytes += 3;
  }
  return bytes;
}

/** `text` cut to at most `max` UTF-8 bytes, never inside a character (nor a surrogate pair). */
function clipUtf8(text: string, max: number): string {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    const pair = unit >= 0xd800 && unit < 0xdc00 && i + 1 < text.length;
    const size = unit < 0x80 ? 1 : unit < 0x800 ? 2 : pair ? 4 : 3;
    if (bytes + size > max) return text.slice(0, i);
    bytes += size;
    if (pair) i += 1;
  }
  return text;
}

/** A message over `lineBytes`, cut with a note saying so. */
function cutLine(text: string, lineBytes: number): string {
  const note = `… [cut at limits.logs.lineBytes (${lineBytes})]`;
  const room = lineBytes - utf8Length(note);
  return room > 0 ? `${clipUtf8(text, room)}${note}` : clipUtf8(text, lineBytes);
}

/** What a line's data becomes when it does not fit in `lineBytes`, as JSON. */
const droppedData = (lineBytes: number) =>
  stringify(`[data over limits.logs.lineBytes (${lineBytes}) dropped]`);

/**
 * One line within the budget, cut to `lineBytes` (message first, then its data dropped whole if
 * the rest does not hold it), or undefined when it is dropped (and counted).
 */
export function logLine(
  budget: LogBudget,
  message: string,
  dataJson: string,
): { message: string; dataJson: string } | undefined {
  if (!logRoom(budget)) return undefined;
  const cap = budget.lineBytes;
  // Cut by characters first (each is at least a byte): a 32 MB line is never measured whole.
  const text = message.length > cap || utf8Length(message) > cap ? cutLine(message, cap) : message;
  const textBytes = utf8Length(text);
  let data = dataJson;
  if (data !== '' && (data.length > cap - textBytes || utf8Length(data) > cap - textBytes)) {
    const note = droppedData(cap);
    data = utf8Length(note) <= cap - textBytes ? note : '';
  }
  const size = textBytes + utf8Length(data);
  if (budget.sentBytes + size > budget.bytes - MARKER_BYTES) {
    drop(budget, 'bytesPerCall');
    return undefined;
  }
  budget.sentLines += 1;
  budget.sentBytes += size;
  return { message: text, dataJson: data };
}

/** The line that says what a call dropped, if it dropped anything. */
export function logMarker(budget: LogBudget): string | undefined {
  if (budget.dropped === 0 || budget.over === undefined) return undefined;
  const cap = budget.over === 'linesPerCall' ? budget.lines : budget.bytes;
  const lines = budget.dropped === 1 ? 'line' : 'lines';
  return `[${budget.dropped} log ${lines} of this call dropped: over limits.logs.${budget.over} (${cap})]`;
}

const TOO_LARGE = { tooLarge: true };

/** The JSON of a line's data, or the note saying it was too large, never building much more than `max`. */
export function logDataJson(data: unknown, max: number): string {
  if (data === undefined) return '';
  let left = max;
  try {
    const text = stringify(data, (key: string, value: unknown) => {
      left -= key.length + 4;
      if (typeof value === 'string') left -= value.length;
      if (left < 0) throw TOO_LARGE;
      return value;
    });
    return text ?? '';
  } catch (error) {
    return error === TOO_LARGE ? droppedData(max) : '"[unserializable]"';
  }
}
