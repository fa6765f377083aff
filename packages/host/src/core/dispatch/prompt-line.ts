/**
 * Text someone else wrote, made fit for one line of a system prompt or a tool description. A
 * skill's description comes from a file anyone with write access to `skills/` controls, and it
 * lands in text the model reads as the operator's. What an attacker would put there, and what
 * becomes of it:
 *
 * - line breaks of every kind (`\n`, `\r`, VT, FF, NEL U+0085, U+2028, U+2029) to start a line of
 *   their own — a `## Operator instructions` heading, a `- item`, a `> quote`, a code fence:
 *   every C0 and C1 control, DEL and line or paragraph separator becomes a space, and runs of
 *   white space collapse to one, so the text stays on the line the host put it on;
 * - markup at the start of that line, for a reader that puts it at a line's start: leading `#`,
 *   `>`, `-`, `+`, `*`, `=`, `_`, `~`, `|` and `1.`-style list markers are dropped;
 * - tags that pose as structure (`</skills>`, `<system>`, `<|im_start|>`): `<` and `>` become
 *   `‹` and `›`; backticks (which open and close code spans and fences) become `'`;
 * - text a person reviewing the prompt would not see: bidi controls (U+202A–202E, U+2066–2069,
 *   U+200E/F, U+061C), zero-width and other format characters (Cf, among them the tag
 *   characters U+E0000–E007F that smuggle ASCII invisibly), variation selectors and every other
 *   default-ignorable code point (the Hangul fillers U+115F, U+1160, U+3164, U+FFA0) are removed;
 * - length: at most `max` characters (code points), the last one `…` when it was cut.
 *
 * What it cannot do: words stay words. A description may still *say* "ignore the user"; the
 * section says it is a skill's description, on that skill's line, and nothing more.
 */

/** Controls and separators that break or move a line: a space in their place. */
const BREAKS = /[\p{Cc}\p{Zl}\p{Zp}]/gu;
/**
 * Invisible characters (format characters, variation selectors, and every other code point
 * Unicode says to show as nothing: the Hangul fillers, which are letters by category): removed.
 */
const INVISIBLE = /[\p{Cf}\p{Variation_Selector}\p{Default_Ignorable_Code_Point}]/gu;
/** Markdown's block markers at the start of a line. */
const LEADING_MARKUP = /^(?:[#>\-+*=_~|]|\d{1,9}[.)](?=\s|$)|\s)+/u;

/** `text` as one inert line of at most `max` characters (see above). */
export function promptLine(text: string, max: number): string {
  const line = text
    .replace(BREAKS, ' ')
    .replace(INVISIBLE, '')
    .replace(/\s+/gu, ' ')
    .trim()
    .replace(LEADING_MARKUP, '')
    .replaceAll('<', '‹')
    .replaceAll('>', '›')
    .replaceAll('`', "'");
  const points = Array.from(line);
  return points.length <= max
    ? line
    : `${points
        .slice(0, max - 1)
        .join('')
        .trimEnd()}…`;
}
