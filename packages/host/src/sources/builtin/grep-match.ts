/**
 * Matching one file's text line by line. Runs inside grep's worker thread (see grep-worker.ts), never
 * on the host's main thread: a pattern can backtrack for as long as it likes there without stalling
 * anything else.
 */
import { clip } from '../../util/text.js';
import type { LineHit } from './grep-protocol.js';

/** Longer matching lines are cut, so one minified file cannot flood the result. */
export const MAX_LINE_CHARS = 400;

/** Whether one line (without its line break) matches. */
export type LineTest = (line: string) => boolean;

/**
 * A test with JavaScript's own engine. `new RegExp` throws a SyntaxError for an invalid pattern;
 * no `g` or `y` flag, so `test` keeps no `lastIndex` state between lines.
 */
export function nativeLineTest(pattern: string, ignoreCase: boolean): LineTest {
  const regex = new RegExp(pattern, ignoreCase ? 'i' : '');
  return (line) => regex.test(line);
}

/**
 * The lines of `text` that pass `test`, numbered from 1, at most `limit` of them. Lines end at
 * `\n`; one `\r` before it is not part of the line. The empty remainder after a final line break
 * is not a line (`^$` does not match past the end of a file).
 */
export function matchLines(text: string, test: LineTest, limit: number): LineHit[] {
  const hits: LineHit[] = [];
  let start = 0;
  let number = 1;
  while (start < text.length && hits.length < limit) {
    let end = text.indexOf('\n', start);
    const next = end === -1 ? text.length : end + 1;
    if (end === -1) end = text.length;
    if (end > start && text.charCodeAt(end - 1) === 13) end--;
    const line = text.slice(start, end);
    if (test(line)) hits.push({ line: number, text: clip(line, MAX_LINE_CHARS) });
    start = next;
    number++;
  }
  return hits;
}
