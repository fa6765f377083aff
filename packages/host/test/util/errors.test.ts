import { describe, expect, it } from 'vitest';
import { errorCode, messageOf } from '../../src/util/errors.js';

describe('messageOf', () => {
  it("gives an Error's own message and renders anything else thrown with String", () => {
    expect(messageOf(new TypeError('bad type'))).toBe('bad type');
    expect(messageOf('plain text')).toBe('plain text');
    expect(messageOf(42)).toBe('42');
    expect(messageOf(undefined)).toBe('undefined');
    expect(messageOf({ message: 'not an Error' })).toBe('[object Object]');
  });
});

describe('errorCode', () => {
  it('gives a string code and nothing for anything else', () => {
    expect(errorCode(Object.assign(new Error('x'), { code: 'ENOENT' }))).toBe('ENOENT');
    expect(errorCode({ code: 7 })).toBeUndefined();
    expect(errorCode(null)).toBeUndefined();
    expect(errorCode('ENOENT')).toBeUndefined();
  });
});
