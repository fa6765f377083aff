import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  isAllowedTool,
  matchesPattern,
  matchesStarGlob,
  type PolicySubject,
} from '../../src/core/register/policy.js';

const sources = ['builtin', 'plugin', 'mcp', 'custom'] as const;
const name = fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/);
const subject: fc.Arbitrary<PolicySubject> = fc.record({
  name,
  source: fc.constantFrom(...sources),
  sourceId: fc.string({ maxLength: 20 }),
  groups: fc.option(fc.array(fc.string({ maxLength: 8 }), { maxLength: 3 }), { nil: undefined }),
});
/** Patterns heavy in wildcards and the characters a regex would treat specially. */
const pattern = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.stringMatching(/^(group:)?[a*.()[\]^$|\\?+-]{0,40}$/),
  fc.array(fc.constantFrom('*', 'a', 'b', '_'), { maxLength: 70 }).map((parts) => parts.join('')),
);

/** The meaning of a glob, by brute force over split points (only for short inputs). */
function reference(glob: string, text: string): boolean {
  const g = glob.toLowerCase();
  const t = text.toLowerCase();
  const memo = new Map<string, boolean>();
  const at = (i: number, j: number): boolean => {
    const key = `${i},${j}`;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let result: boolean;
    if (i === g.length) result = j === t.length;
    else if (g[i] === '*') result = at(i + 1, j) || (j < t.length && at(i, j + 1));
    else result = j < t.length && g[i] === t[j] && at(i + 1, j + 1);
    memo.set(key, result);
    return result;
  };
  return at(0, 0);
}

describe('policy patterns under generated junk', () => {
  it('a glob matches exactly what `*` = any run of characters means, case-insensitively', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('*', 'a', 'B', 'b', '.'), { maxLength: 12 }).map((p) => p.join('')),
        fc.array(fc.constantFrom('a', 'b', 'A', '.'), { maxLength: 12 }).map((p) => p.join('')),
        (glob, text) => {
          expect(matchesStarGlob(glob, text)).toBe(reference(glob, text));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('never throws and never backtracks out of bounds, whatever the pattern (e.g. *a*a*a*…*b on aaaa…)', () => {
    // The worst case of a `.*`-regex translation: exponential in the number of stars.
    expect(matchesStarGlob(`${'*a'.repeat(30)}*b`, 'a'.repeat(64))).toBe(false);
    fc.assert(
      fc.property(pattern, subject, (p, s) => {
        expect(typeof matchesPattern(p, s)).toBe('boolean');
      }),
      { numRuns: 3000 },
    );
  });

  it('deny always wins, and an allow list is exhaustive', () => {
    fc.assert(
      fc.property(
        subject,
        fc.array(pattern, { maxLength: 4 }),
        fc.array(pattern, { maxLength: 4 }),
        (s, allow, deny) => {
          const decision = isAllowedTool(s, { allow, deny });
          const denied = deny.some((p) => matchesPattern(p, s));
          const allowed = allow.some((p) => matchesPattern(p, s));
          expect(decision.allowed).toBe(!denied && allowed);
          if (!decision.allowed) expect(decision.message).toContain(s.name);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
