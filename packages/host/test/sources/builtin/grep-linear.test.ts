import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { linearLineTest, toRe2Syntax } from '../../../src/sources/builtin/grep-linear.js';

const native = (pattern: string, line: string, ignoreCase = false) =>
  new RegExp(pattern, ignoreCase ? 'i' : '').test(line);
const linear = (pattern: string, line: string, ignoreCase = false) =>
  linearLineTest(pattern, ignoreCase)(line);

describe('the linear-time engine', () => {
  // Each row: a construct whose meaning differs between JavaScript and RE2 syntax, and lines that
  // tell the meanings apart. The linear engine must answer as JavaScript does.
  const cases: [pattern: string, lines: string[]][] = [
    ['a.b', ['a-b', 'a\rb', 'a\u2028b', 'a\u2029b', 'a\u00a0b']],
    ['a\\sb', ['a b', 'a\u00a0b', 'a\ufeffb', 'a\u3000b', 'a\u000bb', 'a\u0085b', 'a_b']],
    ['a\\Sb', ['a b', 'a\u00a0b', 'axb']],
    ['[\\s\\S]', ['', 'x', '\u2028']],
    ['[^]', ['', 'x']],
    ['x[]', ['x', 'x]']],
    ['\\p{L}', ['p{L}', 'é']],
    ['\\P', ['P']],
    ['\\z\\A\\Q\\E\\C', ['zAQEC']],
    ['a{,3}', ['a{,3}', 'aaa']],
    ['a{007}', ['aaaaaaa', 'a{007}']],
    ['a{2}b', ['aab', 'ab']],
    ['{x}', ['{x}']],
    ['a}]', ['a}]']],
    ['\\u00e9\\x41', ['éA', 'ex41']],
    ['\\u{41}', ['u'.repeat(41), 'A']],
    ['\\cJ', ['\n', 'cJ']],
    ['\\c1', ['\\c1', '\u0011']],
    ['[\\c1]', ['\u0011', 'c', '1']],
    ['[\\c]', ['\\', 'c']],
    ['[\\b]', ['\b', 'b']],
    ['[\\B]', ['B', '\\']],
    ['[\\1]', ['\u0001', '1']],
    ['[\\8]', ['8']],
    ['[\\377]', ['\u00ff']],
    ['[\\400]', [' ', '0', '4']],
    ['[\\d-z]', ['-', 'z', '5', 'a']],
    ['[a-\\d]', ['-', 'a', '5', 'b']],
    ['[-a]', ['-', 'a']],
    ['[a-]', ['-', 'a']],
    ['[^a-c]', ['a', 'd', '😀']],
    ['\\k', ['k']],
    ['(?<word>x)y', ['xy']],
    ['(a)(?:b)|c', ['ab', 'c', 'a']],
    ['a+?b*?c??', ['abbc', 'ac']],
    ['\\bfoo\\B', ['foox', 'foo x', 'xfoox']],
    ['^a$', ['a', 'ab']],
    ['\\/\\-\\#', ['/-#']],
    ['\\0', ['\u0000', '0']],
    ['a|', ['', 'b']],
  ];
  it.each(cases)('matches %j as JavaScript does', (pattern, lines) => {
    for (const line of lines) expect([line, linear(pattern, line)]).toEqual([line, native(pattern, line)]);
  });

  it("ignores case exactly as JavaScript's i flag does, not as Unicode case folding would", () => {
    // RE2 alone would match the Kelvin sign for k, long s for s and ẞ for ß; JavaScript does not.
    const pairs: [string, string][] = [
      ['résumé', 'RÉSUMÉ'],
      ['[a-f]x', 'Cx'],
      ['[^a-b]', 'A'],
      ['σ', 'Σ'],
      ['σ', 'ς'],
      ['k', '\u212a'],
      ['[a-z]', '\u212a'],
      ['\\w', '\u212a'],
      ['\\W', 's'],
      ['s', '\u017f'],
      ['[^s]', '\u017f'],
      ['ß', '\u1e9e'],
      ['µ', 'μ'],
    ];
    for (const [pattern, line] of pairs) {
      expect([pattern, line, linear(pattern, line, true)]).toEqual([
        pattern,
        line,
        native(pattern, line, true),
      ]);
    }
  });

  it('refuses what RE2 cannot express, naming it', () => {
    const refusals: [string, string][] = [
      ['(a)\\1', 'a backreference or octal escape ("\\1") is not supported'],
      ['(?<n>a)\\k<n>', 'a named backreference ("\\k<…>") is not supported'],
      ['a(?=b)', 'lookahead "(?=" is not supported'],
      ['a(?!b)', 'lookahead "(?!" is not supported'],
      ['(?<=a)b', 'lookbehind "(?<=" is not supported'],
      ['(?<!a)b', 'lookbehind "(?<!" is not supported'],
      ['a{1001}', 'a repetition count over 1000 ("{1001}") is not supported'],
      ['😀', 'a character outside the Basic Multilingual Plane (an emoji, say) is not supported'],
      ['\\ud83d', 'a character outside the Basic Multilingual Plane (an emoji, say) is not supported'],
      ['\\01', 'an octal escape ("\\0" followed by digits) is not supported'],
    ];
    for (const [pattern, message] of refusals) {
      expect(() => linearLineTest(pattern, false), pattern).toThrow(message);
    }
  });

  it('refuses an invalid JavaScript pattern with the SyntaxError JavaScript gives', () => {
    expect(() => linearLineTest('fix(', false)).toThrow(SyntaxError);
    expect(() => linearLineTest('x**', false)).toThrow(SyntaxError);
  });

  it('keeps every group non-capturing, since grep never reads a capture', () => {
    expect(toRe2Syntax('(a)(?<n>b)(?:c)')).toBe('(?:a)(?:b)(?:c)');
  });

  it('agrees with JavaScript on generated patterns and lines', () => {
    // Characters where the two engines could plausibly disagree: spaces of both kinds, line
    // separators, case pairs (ASCII, Latin-1, Greek sigmas), regex punctuation.
    const chars = [
      'a',
      'b',
      'A',
      'B',
      '0',
      '_',
      ' ',
      '-',
      '.',
      '\t',
      '\r',
      '\u00a0',
      '\u2028',
      'é',
      'É',
      'σ',
      'Σ',
      'ς',
    ];
    const escapeChar = (char: string) => (/[\\^$.*+?()[\]{}|/-]/.test(char) ? `\\${char}` : char);
    const charLiteral = fc.constantFrom(...chars).map(escapeChar);
    const classItem = fc.oneof(
      charLiteral,
      fc.constantFrom('a-b', '0-9', 'A-Z', 'r-t', '\\d', '\\s', '\\S', '\\w', '\\W', '\\u00e9', '\\x41'),
    );
    const charClass = fc
      .tuple(fc.boolean(), fc.array(classItem, { minLength: 1, maxLength: 3 }))
      .map(([negated, items]) => `[${negated ? '^' : ''}${items.join('')}]`);
    const { pattern } = fc.letrec<{ pattern: string; term: string; atom: string }>((tie) => ({
      pattern: fc.array(tie('term'), { minLength: 1, maxLength: 4 }).map((terms) => terms.join('')),
      term: fc.oneof(
        { weight: 4, arbitrary: tie('atom') },
        {
          weight: 2,
          arbitrary: fc
            .tuple(tie('atom'), fc.constantFrom('*', '+', '?', '{2}', '{1,2}', '{0,}'), fc.boolean())
            .map(([atom, quantifier, lazy]) => `${atom}${quantifier}${lazy ? '?' : ''}`),
        },
        { weight: 1, arbitrary: fc.constantFrom('^', '$', '\\b', '\\B') },
      ),
      atom: fc.oneof(
        { weight: 5, arbitrary: charLiteral },
        { weight: 2, arbitrary: fc.constantFrom('.', '\\d', '\\D', '\\w', '\\W', '\\s', '\\S') },
        { weight: 2, arbitrary: charClass },
        {
          weight: 1,
          arbitrary: fc
            .tuple(fc.constantFrom('(', '(?:'), fc.array(tie('pattern'), { minLength: 1, maxLength: 2 }))
            .map(([open, alternatives]) => `${open}${alternatives.join('|')})`),
        },
      ),
    }));
    const line = fc.array(fc.constantFrom(...chars), { maxLength: 10 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(
        pattern,
        fc.array(line, { minLength: 1, maxLength: 5 }),
        fc.boolean(),
        (source, lines, ignoreCase) => {
          const test = linearLineTest(source, ignoreCase);
          for (const text of lines)
            expect([source, text, test(text)]).toEqual([source, text, native(source, text, ignoreCase)]);
        },
      ),
      { numRuns: 400 },
    );
  });
});
