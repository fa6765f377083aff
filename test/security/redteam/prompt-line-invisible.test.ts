import { describe, expect, it } from 'vitest';
import { promptLine } from '../../../packages/host/src/core/dispatch/prompt-line.js';

/**
 * A skill's description reaches the system prompt as one line with the characters a person
 * reviewing the prompt would not see removed. Format characters (Cf) and variation selectors
 * were; the other default-ignorable code points were not: the Hangul fillers (U+115F, U+1160,
 * U+3164, U+FFA0, letters by category, blank on screen, a known way to hide text or spoof a
 * name), the Mongolian free variation selectors' neighbours and unassigned ignorables. A
 * description can then carry words no reviewer sees between the ones they do.
 */
describe('a prompt line keeps no invisible character', () => {
  it('removes every default-ignorable code point, the Hangul fillers among them', () => {
    const hidden = ['\u115f', '\u1160', '\u3164', '\uffa0', '\u180e', '\u2065', '\u{e0001}', '\u{e01ef}'];
    const line = promptLine(`Formats dates${hidden.join('')} nicely`, 256);
    expect(line).toBe('Formats dates nicely');
    expect(/\p{Default_Ignorable_Code_Point}/u.test(line)).toBe(false);
  });
});
