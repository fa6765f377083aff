/**
 * What reaches a terminal. Most of what the CLI prints is text others wrote: plugin and tool
 * names, descriptions, build errors, log lines and results, MCP servers' tools and errors, skill
 * files, a model's input. A terminal acts on control characters in it: clear the screen, set the
 * window title, write the user's clipboard (OSC 52), move the cursor up and erase a warning line,
 * return to the line's start and overwrite it, reorder text with bidi overrides. So every text
 * the CLI writes (`Output.write`, io.ts) passes through {@link terminalText}, the one place:
 *
 * - C0 controls but tab and newline (and a carriage return right before a newline) are shown as
 *   `\xHH` (`\x1b`, `\x07`, `\x0d`);
 * - DEL, the C1 controls (U+0080–U+009F, which 8-bit terminals take as ESC sequences: U+009B is
 *   CSI) and the bidi controls (U+061C, U+200E/F, U+202A–U+202E, U+2066–U+2069) are shown as
 *   `\uHHHH`: the same form JSON uses, so `--json` output (already escaped below U+0020 by
 *   `JSON.stringify`, which leaves these raw) stays JSON and parses to the exact text.
 *
 * The CLI's own colours and its progress line still reach the terminal: they are written as
 * tokens carrying a random value made when this module loads, which text from elsewhere cannot
 * know, and only those tokens become sequences.
 */
import { randomBytes } from 'node:crypto';
import { escapeControls } from '../util/text.js';

/** Known only to this process: text from outside cannot forge one of the CLI's own sequences. */
const NONCE = randomBytes(12).toString('hex');

/** A token and what it stands for: SGR `\x1b[<n>m`, or the progress line's `\r\x1b[K`. */
const TOKEN = new RegExp(`\\x1b${NONCE}(\\d{1,3}m|K)\\x1b`, 'g');

/** The CLI's own SGR sequence `\x1b[<code>m` (a colour, bold, dim, or their end). */
export function ownSgr(code: number): string {
  return `\x1b${NONCE}${code}m\x1b`;
}

/** The CLI's own "back to the line's start and erase it", for the progress line. */
export const OWN_ERASE_LINE = `\x1b${NONCE}K\x1b`;

export { escapeControls };

/** `text` as it goes to the terminal: the CLI's own tokens as sequences, everything else escaped. */
export function terminalText(text: string): string {
  let out = '';
  let last = 0;
  for (const match of text.matchAll(TOKEN)) {
    out += escapeControls(text.slice(last, match.index));
    const own = match[1] ?? '';
    out += own === 'K' ? '\r\x1b[K' : `\x1b[${own}`;
    last = match.index + match[0].length;
  }
  return out + escapeControls(text.slice(last));
}

/** How many characters `text` takes on the terminal's line: tokens take none, escapes their length. */
export function displayLength(text: string): number {
  return escapeControls(text.replace(TOKEN, '')).length;
}
