import { describe, expect, it } from 'vitest';
import { parseFrozen } from '../../src/util/frozen-json.js';

describe('parseFrozen', () => {
  it('freezes every object and array in the value, nested ones too', () => {
    const value = parseFrozen('{"command":"ls","args":["-l",{"deep":[1]}],"env":{"A":"1"}}') as {
      args: [string, { deep: number[] }];
      env: Record<string, string>;
    };
    expect(value).toEqual({ command: 'ls', args: ['-l', { deep: [1] }], env: { A: '1' } });
    for (const part of [value, value.args, value.args[1], value.args[1].deep, value.env])
      expect(Object.isFrozen(part)).toBe(true);
  });

  it('keeps a "__proto__" key as plain data and leaves Object.prototype alone', () => {
    const value = parseFrozen('{"__proto__":{"polluted":true}}') as Record<string, unknown>;
    expect(Object.hasOwn(value, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.isFrozen(Object.prototype)).toBe(false);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('freezes a value nested deeper than the call stack allows recursion', () => {
    const depth = 100_000;
    let value = parseFrozen(`${'['.repeat(depth)}${']'.repeat(depth)}`);
    let unfrozen = 0;
    for (let level = 0; level < depth; level++) {
      if (!Object.isFrozen(value)) unfrozen += 1;
      value = (value as unknown[])[0];
    }
    expect(unfrozen).toBe(0);
  });

  it('returns primitives as they are', () => {
    expect(parseFrozen('"text"')).toBe('text');
    expect(parseFrozen('null')).toBeNull();
  });
});
