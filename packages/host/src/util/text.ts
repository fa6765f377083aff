/** `text` cut to its first `max` characters, with `…` to show it was cut. */
export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/**
 * Characters a terminal would act on rather than show: C0 controls but tab and newline, DEL, C1
 * controls (U+0080–U+009F, among them the one-character CSI), and the bidirectional overrides and
 * isolates that reorder what a line appears to say.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters it escapes
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** `text` with every terminal control character written as an escape (`\x1b`, `\u202e`), never interpreted. */
export function escapeControls(text: string): string {
  return text.replace(CONTROLS, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff
      ? `\\x${code.toString(16).padStart(2, '0')}`
      : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
