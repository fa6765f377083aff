import { describe, expect, it } from 'vitest';
import { clip } from '../../src/util/text.js';

describe('clip', () => {
  it('keeps text up to max characters and cuts longer text to max, marked with …', () => {
    expect(clip('abc', 3)).toBe('abc');
    expect(clip('abcd', 3)).toBe('abc…');
    expect(clip('', 0)).toBe('');
  });
});
