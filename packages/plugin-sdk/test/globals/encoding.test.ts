/**
 * The runtime's TextEncoder/TextDecoder, atob/btoa and structuredClone (plain JS for the isolate),
 * checked against Node's own on generated inputs.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_CLONE_VALUES, structuredClone } from '../../src/runtime/globals/clone.js';
import { atob, btoa, TextDecoder, TextEncoder } from '../../src/runtime/globals/encoding.js';

describe('TextEncoder / TextDecoder (runtime)', () => {
  it('encode agrees with Node on any string, lone surrogates included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 24 }), (text) => {
        expect([...new TextEncoder().encode(text)]).toEqual([...new globalThis.TextEncoder().encode(text)]);
      }),
      { numRuns: 500 },
    );
  });

  it('decode agrees with Node on any bytes, malformed ones included, whole and streamed', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), fc.nat(40), (bytes, cut) => {
        const node = new globalThis.TextDecoder().decode(bytes);
        expect(new TextDecoder().decode(bytes)).toBe(node);
        const at = Math.min(cut, bytes.length);
        const streamed = new TextDecoder();
        expect(
          streamed.decode(bytes.subarray(0, at), { stream: true }) + streamed.decode(bytes.subarray(at)),
        ).toBe(node);
      }),
      { numRuns: 500 },
    );
  });

  it('fatal decoding throws a TypeError on malformed input; a BOM is dropped unless ignoreBOM', () => {
    expect(() => new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array([0xc3]))).toThrow(TypeError);
    expect(new TextDecoder().decode(new Uint8Array([0xef, 0xbb, 0xbf, 0x61]))).toBe('a');
    expect(
      new TextDecoder('utf8', { ignoreBOM: true }).decode(new Uint8Array([0xef, 0xbb, 0xbf, 0x61])),
    ).toBe('\ufeffa');
    expect(() => new TextDecoder('latin1')).toThrow(/only utf-8/);
  });

  it('encodeInto stops before a character that does not fit', () => {
    const out = new Uint8Array(4);
    expect(new TextEncoder().encodeInto('a€b', out)).toEqual(
      new globalThis.TextEncoder().encodeInto('a€b', new Uint8Array(4)),
    );
  });
});

describe('atob / btoa (runtime)', () => {
  it('agree with Node both ways', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.integer({ min: 0, max: 255 }).map((c) => String.fromCharCode(c)) }),
        (latin1) => {
          const encoded = btoa(latin1);
          expect(encoded).toBe(globalThis.btoa(latin1));
          expect(atob(encoded)).toBe(latin1);
          expect(atob(` ${encoded.replace(/=+$/, '')}\n`)).toBe(
            globalThis.atob(` ${encoded.replace(/=+$/, '')}\n`),
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('refuse what Node refuses, saying how to encode non-Latin-1 text', () => {
    expect(() => btoa('€')).toThrow(/TextEncoder/);
    for (const bad of ['a', 'ab=c', '*']) {
      expect(() => globalThis.atob(bad)).toThrow();
      expect(() => atob(bad)).toThrow(/not correctly encoded/);
    }
  });
});

describe('structuredClone (runtime)', () => {
  it('clones what Node clones, keeping cycles and shared references', () => {
    const shared = { n: 1 };
    const value: Record<string, unknown> = {
      a: [1, 'two', null, undefined, 3n, true],
      d: new Date(5),
      r: /x+/gi,
      m: new Map<unknown, unknown>([['k', shared]]),
      s: new Set([shared]),
      u: new Uint16Array([1, 2, 3]),
      e: new RangeError('bad'),
      shared,
    };
    value.self = value;
    const ours = structuredClone(value);
    const node = globalThis.structuredClone(value);
    expect(ours).toEqual(node);
    expect(ours.self).toBe(ours);
    expect((ours.m as Map<string, unknown>).get('k')).toBe(ours.shared);
    expect(ours.shared).not.toBe(shared);
    expect(ours.e).toBeInstanceOf(RangeError);
  });

  it('refuses functions and symbols with a DataCloneError', () => {
    expect(() => structuredClone({ f: () => 1 })).toThrow(
      expect.objectContaining({ name: 'DataCloneError' }),
    );
    expect(() => structuredClone(Symbol('s'))).toThrow(expect.objectContaining({ name: 'DataCloneError' }));
  });

  it(`refuses a value of more than ${MAX_CLONE_VALUES} values with a DataCloneError naming the cap`, () => {
    const wide = Object.fromEntries(Array.from({ length: MAX_CLONE_VALUES + 1 }, (_, i) => [`k${i}`, i]));
    const expected = expect.objectContaining({
      name: 'DataCloneError',
      message: expect.stringContaining(`more than ${MAX_CLONE_VALUES} values`),
    });
    expect(() => structuredClone(wide)).toThrow(expected);
    // Counted across the whole value, whatever its shape: nested arrays and Map entries alike.
    const deep = Array.from({ length: 400 }, () => new Map(Array.from({ length: 200 }, (_, i) => [i, [i]])));
    expect(() => structuredClone(deep)).toThrow(expected);
    const fits = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`k${i}`, { i }]));
    expect(structuredClone(fits)).toEqual(fits);
  });
});
