import { describe, expect, it } from 'vitest';
import { MAX_LINE_CHARS, matchLines, nativeLineTest } from '../../../src/sources/builtin/grep-match.js';

const lines = (text: string, pattern: string, limit = 100) =>
  matchLines(text, nativeLineTest(pattern, false), limit).map(({ line, text: shown }) => `${line}:${shown}`);

describe('matchLines', () => {
  it('numbers lines from 1 and drops one \\r before each line break', () => {
    expect(lines('a1\r\nb\r\na2\r\r\na3', 'a')).toEqual(['1:a1', '3:a2\r', '4:a3']);
  });

  it('anchors ^ and $ at each line', () => {
    expect(lines('x;\r\n;y\n z;\n', '^\\S.*;$')).toEqual(['1:x;']);
  });

  it('has no line after a final line break, and none in an empty file', () => {
    expect(lines('a\n\n', '^$')).toEqual(['2:']);
    expect(lines('', '^$')).toEqual([]);
    expect(lines('\n', '^$')).toEqual(['1:']);
  });

  it('stops at the limit', () => {
    expect(lines('a\na\na\na\n', 'a', 2)).toEqual(['1:a', '2:a']);
  });

  it('cuts long lines', () => {
    const [hit] = matchLines(`x${'y'.repeat(1000)}`, nativeLineTest('x', false), 1);
    expect(hit?.text).toBe(`x${'y'.repeat(MAX_LINE_CHARS - 1)}…`);
  });
});
