/** `text` cut to its first `max` characters, with `…` to show it was cut. */
export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/**
 * Characters a terminal acts on (see cli/terminal.ts for why each): C0 controls but tab and
 * newline (a carriage return right before a newline stays, so a line end stays a line end), DEL,
 * the C1 controls and the bidi controls.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL = /\r\n|[\x00-\x08\x0b-\x1f\x7f-\x9f\p{Bidi_Control}]/gu;

function shown(char: string): string {
  if (char === '\r\n') return char;
  const code = char.codePointAt(0) ?? 0;
  return code < 0x20
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * `text` with every control character shown, not acted on: C0 as `\xHH`, DEL, C1 and bidi
 * controls as `\uHHHH` (JSON's own form, so JSON text stays JSON).
 */
export function escapeControls(text: string): string {
  return text.replace(CONTROL, shown);
}
