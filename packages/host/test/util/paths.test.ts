import { describe, expect, it } from 'vitest';
import { isInside } from '../../src/util/paths.js';

describe('isInside', () => {
  it('accepts the root and paths beneath it', () => {
    expect(isInside('/w/root', '/w/root')).toBe(true);
    expect(isInside('/w/root', '/w/root/a/b')).toBe(true);
    expect(isInside('/w/root', '/w/root/..hidden')).toBe(true);
  });

  it('refuses the parent, siblings sharing a prefix, and elsewhere', () => {
    expect(isInside('/w/root', '/w')).toBe(false);
    expect(isInside('/w/root', '/w/root2/a')).toBe(false);
    expect(isInside('/w/root', '/etc/passwd')).toBe(false);
  });
});
