/**
 * The host's caps on a plugin's log lines (`limits.logs`): per call (lines, bytes, the length of
 * one line) and per plugin per minute. The isolate's runtime cuts at the per-call caps first,
 * where it costs nothing to the host; the host counts again here, trusting no count of the
 * isolate's, before a line's data is parsed or reaches an observer. What is dropped is counted and
 * said in one marker line when the call ends. Bytes are UTF-8 bytes of the message and its data's
 * JSON.
 */
import type { LogLimits } from '../config/limits.js';

export type { LogLimits } from '../config/limits.js';
export { DEFAULT_LOG_LIMITS } from '../config/limits.js';

const MINUTE_MS = 60_000;

/** The note a cut line ends with (the runtime writes the same). */
export const cutNote = (lineBytes: number) => `… [cut at limits.logs.lineBytes (${lineBytes})]`;
/** What a line's data becomes when it does not fit (the runtime writes the same), as JSON. */
export const droppedData = (lineBytes: number) =>
  JSON.stringify(`[data over limits.logs.lineBytes (${lineBytes}) dropped]`);

/** `text` cut to at most `max` UTF-8 bytes, never inside a character. */
export function clipUtf8(text: string, max: number): string {
  if (Buffer.byteLength(text) <= max) return text;
  const bytes = Buffer.from(text.slice(0, max));
  let end = Math.min(max, bytes.length);
  // Back off to the start of a character: continuation bytes are 10xxxxxx.
  while (end > 0 && ((bytes[end] as number) & 0xc0) === 0x80) end -= 1;
  return bytes.subarray(0, end).toString();
}

/** One plugin's lines and bytes in the current minute, all its calls together. */
export class LogWindow {
  readonly #now: () => number;
  #start = Number.NEGATIVE_INFINITY;
  #lines = 0;
  #bytes = 0;

  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
  }

  /** Counts one line of `bytes`; false (and nothing counted) when it would go over `limits`. */
  take(limits: LogLimits, bytes: number): 'linesPerMinute' | 'bytesPerMinute' | undefined {
    const now = this.#now();
    if (now - this.#start >= MINUTE_MS) {
      this.#start = now;
      this.#lines = 0;
      this.#bytes = 0;
    }
    if (this.#lines + 1 > limits.linesPerMinute) return 'linesPerMinute';
    if (this.#bytes + bytes > limits.bytesPerMinute) return 'bytesPerMinute';
    this.#lines += 1;
    this.#bytes += bytes;
    return undefined;
  }
}

/** The log windows of the plugins of one sandbox, by plugin id. */
export class LogWindows {
  readonly #windows = new Map<string, LogWindow>();

  of(pluginId: string): LogWindow {
    let window = this.#windows.get(pluginId);
    if (window === undefined) {
      window = new LogWindow();
      this.#windows.set(pluginId, window);
    }
    return window;
  }
}

/** What one call's gate needs: its caps, and its plugin's window (none for a call of no plugin). */
export interface CallLogOptions {
  readonly limits: LogLimits;
  readonly plugin?: { readonly id: string; readonly window: LogWindow };
}

/** One call's log lines on the host: each admitted (cut to size) or dropped and counted. */
export class CallLogGate {
  readonly #options: CallLogOptions;
  #lines = 0;
  #bytes = 0;
  #dropped = 0;
  /** Why the first line was dropped, for the marker. */
  #why: string | undefined;

  constructor(options: CallLogOptions) {
    this.#options = options;
  }

  /** The line as it may go on (cut to `lineBytes`), or undefined when it is dropped. */
  admit(message: string, dataJson: string): { message: string; dataJson: string } | undefined {
    const { limits, plugin } = this.#options;
    if (this.#lines >= limits.linesPerCall)
      return this.#drop(`over limits.logs.linesPerCall (${limits.linesPerCall})`);
    const cap = limits.lineBytes;
    let text = message;
    if (Buffer.byteLength(text) > cap) {
      const note = cutNote(cap);
      const room = cap - Buffer.byteLength(note);
      text = room > 0 ? `${clipUtf8(text, room)}${note}` : clipUtf8(text, cap);
    }
    const textBytes = Buffer.byteLength(text);
    let data = dataJson;
    if (data !== '' && Buffer.byteLength(data) > cap - textBytes) {
      const note = droppedData(cap);
      data = Buffer.byteLength(note) <= cap - textBytes ? note : '';
    }
    const size = textBytes + Buffer.byteLength(data);
    if (this.#bytes + size > limits.bytesPerCall)
      return this.#drop(`over limits.logs.bytesPerCall (${limits.bytesPerCall})`);
    const over = plugin?.window.take(limits, size);
    if (over !== undefined) {
      return this.#drop(`plugin "${plugin?.id}" is over limits.logs.${over} (${limits[over]})`);
    }
    this.#lines += 1;
    this.#bytes += size;
    return { message: text, dataJson: data };
  }

  #drop(why: string): undefined {
    this.#dropped += 1;
    this.#why ??= why;
    return undefined;
  }

  /** The marker line for what this gate dropped, if it dropped anything. */
  marker(): string | undefined {
    if (this.#dropped === 0) return undefined;
    return `[${this.#dropped} log line${this.#dropped === 1 ? '' : 's'} of this call dropped: ${this.#why}]`;
  }
}
