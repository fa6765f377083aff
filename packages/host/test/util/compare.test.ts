import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { byCodeUnit } from '../../src/util/compare.js';

describe('byCodeUnit', () => {
  it('orders by UTF-16 code unit, not by locale: capitals first, accents and astral characters last', () => {
    const words = ['é', 'b', 'Z', 'a', '\u{1F600}', '\uFFFF', 'aa', ''];
    expect([...words].sort(byCodeUnit)).toEqual(['', 'Z', 'a', 'aa', 'b', 'é', '\u{1F600}', '\uFFFF']);
  });

  it('agrees with the default sort and is a consistent comparator', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary' })), (words) => {
        const sorted = [...words].sort(byCodeUnit);
        const byDefault = [...words].sort();
        const [a = '', b = ''] = words;
        return (
          sorted.every((word, i) => word === byDefault[i]) &&
          Math.sign(byCodeUnit(a, b)) === -Math.sign(byCodeUnit(b, a)) &&
          (byCodeUnit(a, b) === 0) === (a === b)
        );
      }),
    );
  });
});
