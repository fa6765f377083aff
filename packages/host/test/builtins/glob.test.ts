import { describe, expect, it } from 'vitest';
import { globToRegExp, matchesGlob } from '../../src/builtins/glob.js';

const matches = (glob: string, rel: string) => matchesGlob(globToRegExp(glob), glob.includes('/'), rel);

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
});
