import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compilePathGlob } from '../../../src/sources/builtin/glob.js';
import { referenceGlobToRegExp, referenceMatchesGlob } from './grep-reference.js';

const matches = (glob: string, rel: string) => compilePathGlob(glob).matches(rel);

describe('glob', () => {
  it('matches * within one segment and against the file name when there is no slash', () => {
    expect(matches('*.ts', 'a/b/c.ts')).toBe(true);
    expect(matches('*.ts', 'a/b/c.tsx')).toBe(false);
    expect(matches('src/*.ts', 'src/a/b.ts')).toBe(false);
  });

  it('matches ** across segments, including none', () => {
    expect(matches('src/**/*.ts', 'src/a.ts')).toBe(true);
    expect(matches('src/**/*.ts', 'src/a/b/c.ts')).toBe(true);
    expect(matches('src/**', 'lib/a.ts')).toBe(false);
  });

  it('matches ?, {a,b} and regex characters literally', () => {
    expect(matches('?.md', 'a.md')).toBe(true);
    expect(matches('*.{js,ts}', 'x.js')).toBe(true);
    expect(matches('*.{js,ts}', 'x.css')).toBe(false);
    expect(matches('a+b(1).txt', 'a+b(1).txt')).toBe(true);
    expect(matches('a.txt', 'abtxt')).toBe(false);
  });

  it('explains an unclosed brace', () => {
    expect(() => compilePathGlob('{a,{b}')).toThrow('glob "{a,{b}" has an unclosed "{"');
  });

  it('answers at once where a backtracking matcher would try every way to split the name', () => {
    // As a RegExp, (?:a|a){24}b against 30 a's tries 2^24 ways; `*a` 200 times, thousands of millions.
    // Here each takes one pass over the name per glob state: finishing at all is the assertion.
    expect(matches(`${'{a,a}'.repeat(24)}b`, `${'a'.repeat(30)}c`)).toBe(false);
    expect(matches('*a'.repeat(200), `${'a'.repeat(250)}b`)).toBe(false);
    expect(matches('**/'.repeat(100), `${'a/'.repeat(200)}b`)).toBe(false);
  });

  it('agrees with the RegExp translation it replaced', () => {
    const piece = fc.constantFrom(
      'a',
      'b',
      '/',
      '.',
      '*',
      '**',
      '**/',
      '?',
      '{a,b}',
      '{,a*}',
      '{a/,{b,}}',
      '+',
      '(',
      '\\',
    );
    const glob = fc.array(piece, { maxLength: 6 }).map((pieces) => pieces.join(''));
    const path = fc
      .array(fc.constantFrom('a', 'b', '/', '.', '+', '(', '\\'), { maxLength: 8 })
      .map((p) => p.join(''));
    fc.assert(
      fc.property(glob, fc.array(path, { minLength: 1, maxLength: 5 }), (source, paths) => {
        const compiled = compilePathGlob(source);
        const reference = referenceGlobToRegExp(source);
        for (const rel of paths) {
          expect([source, rel, compiled.matches(rel)]).toEqual([
            source,
            rel,
            referenceMatchesGlob(reference, source.includes('/'), rel),
          ]);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
