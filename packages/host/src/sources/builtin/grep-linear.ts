/**
 * grep's linear-time engine: a JavaScript pattern rewritten into RE2 syntax and run by re2js, whose
 * matching time grows linearly with the line (no exponential backtracking, whatever the pattern).
 *
 * The rewrite keeps JavaScript's meaning where the two syntaxes differ: `.`, `\s` and `\S` get
 * JavaScript's character sets, `\uXXXX` and `\cX` become code points, identity escapes such as `\p`
 * or `\z` stay literal letters, and every group becomes non-capturing. Case-insensitive matching is
 * JavaScript's too: rather than RE2's Unicode case folding, every letter and class is expanded here to
 * the characters JavaScript's `i` flag treats as equal to it. What RE2 cannot express
 * (backreferences, lookahead, lookbehind) is refused with an error naming the construct.
 *
 * One difference remains: a character outside the Basic Multilingual Plane (an emoji) in a line
 * counts as one character here and as two in JavaScript (`a..b` matches "a😀b" only there).
 */
import { RE2JS } from 're2js';
import type { LineTest } from './grep-match.js';
import {
  caseClosure,
  caseTable,
  classText,
  complement,
  DIGIT,
  LINE_TERMINATOR,
  type Range,
  SPACE,
  WORD,
} from './grep-ranges.js';

/** A pattern the linear-time engine cannot run; the message names the construct. */
export class UnsupportedPatternError extends Error {
  readonly code = 'unsupported-pattern';
}

/** A test with the linear-time engine. Throws a SyntaxError for an invalid JavaScript pattern. */
export function linearLineTest(pattern: string, ignoreCase: boolean): LineTest {
  // The same syntax check as the native engine, so both refuse exactly the same patterns as invalid.
  new RegExp(pattern, ignoreCase ? 'i' : '');
  const source = toRe2Syntax(pattern, ignoreCase);
  let regex: RE2JS;
  try {
    // No RE2 case folding: the rewrite has already spelled out JavaScript's case equivalences.
    regex = RE2JS.compile(source);
  } catch (error) {
    throw new UnsupportedPatternError((error as Error).message);
  }
  return (line) => regex.test(line);
}

const RE2_META = '\\.+*?()|[]{}^$';
/** `{n}`, `{n,}` or `{n,m}` (sticky: tried at one position). */
const BRACE_QUANTIFIER = /\{(\d+)(?:,(\d*))?\}/y;
/** RE2 refuses larger counts in `{n,m}`. */
const MAX_REPEAT = 1000;
const CONTROL_ESCAPES: Readonly<Record<string, number>> = { t: 9, n: 10, v: 11, f: 12, r: 13 };
/** Class escapes as sets (inside a class, where RE2's own `\\s` would mean something else). */
const SET_ESCAPES: Readonly<Record<string, readonly Range[]>> = {
  d: DIGIT,
  D: complement(DIGIT),
  w: WORD,
  W: complement(WORD),
  s: SPACE,
  S: complement(SPACE),
};

/**
 * Rewrites a valid JavaScript pattern (no `u` or `v` flag; `i` when `ignoreCase`) into RE2 syntax,
 * without flags, with the same meaning.
 */
export function toRe2Syntax(pattern: string, ignoreCase = false): string {
  return new Translator(pattern, ignoreCase).translate();
}

type ClassAtom = { readonly char: number } | { readonly set: readonly Range[] };

class Translator {
  readonly #src: string;
  readonly #ignoreCase: boolean;
  readonly #hasNamedGroups: boolean;
  #pos = 0;

  constructor(src: string, ignoreCase: boolean) {
    this.#src = src;
    this.#ignoreCase = ignoreCase;
    this.#hasNamedGroups = /\(\?<[^=!]/.test(src);
  }

  /** One character, or under `ignoreCase` the class of characters JavaScript treats as equal to it. */
  #char(code: number): string {
    if (!this.#ignoreCase) return literal(code);
    const orbit = caseTable().orbitOf.get(codeUnit(code));
    return orbit === undefined ? literal(code) : classText(orbit.map((member) => [member, member]));
  }

  /**
   * A set of characters, as JavaScript's class semantics has it: under `ignoreCase` a character is
   * in the class when one that is equal to it ignoring case is; negation comes after that.
   */
  #set(ranges: readonly Range[], negated = false): string {
    const closed = this.#ignoreCase ? caseClosure(ranges) : ranges;
    return classText(negated ? complement(closed) : closed);
  }

  translate(): string {
    let out = '';
    const src = this.#src;
    while (this.#pos < src.length) {
      const char = src.charAt(this.#pos);
      switch (char) {
        case '\\':
          out += this.#atomEscape();
          break;
        case '[':
          out += this.#characterClass();
          break;
        case '(':
          out += this.#groupOpening();
          break;
        case '.':
          out += this.#set(LINE_TERMINATOR, true);
          this.#pos++;
          break;
        case '{':
          out += this.#braceQuantifierOrLiteral();
          break;
        case '}':
        case ']':
          out += literal(char.charCodeAt(0));
          this.#pos++;
          break;
        case '^':
        case '$':
        case '|':
        case ')':
        case '*':
        case '+':
        case '?':
          out += char;
          this.#pos++;
          break;
        default:
          out += this.#char(src.charCodeAt(this.#pos));
          this.#pos++;
      }
    }
    return out;
  }

  #groupOpening(): string {
    const src = this.#src;
    if (src.charAt(this.#pos + 1) !== '?') {
      this.#pos++;
      return '(?:';
    }
    const kind = src.slice(this.#pos, this.#pos + 4);
    if (kind.startsWith('(?:')) {
      this.#pos += 3;
      return '(?:';
    }
    if (kind.startsWith('(?=') || kind.startsWith('(?!')) unsupported(`lookahead "${kind.slice(0, 3)}"`);
    if (kind === '(?<=' || kind === '(?<!') unsupported(`lookbehind "${kind}"`);
    if (kind.startsWith('(?<')) {
      const close = src.indexOf('>', this.#pos);
      if (close === -1) unsupported('an unterminated group name');
      this.#pos = close + 1;
      return '(?:';
    }
    return unsupported(`the group "${kind.slice(0, 3)}"`);
  }

  #braceQuantifierOrLiteral(): string {
    BRACE_QUANTIFIER.lastIndex = this.#pos;
    const quantifier = BRACE_QUANTIFIER.exec(this.#src);
    if (quantifier === null) {
      // Annex B: a `{` that does not start a quantifier is a literal brace.
      this.#pos++;
      return '\\{';
    }
    const [text, min = '', max] = quantifier;
    const lo = Number(min);
    const hi = max === undefined || max === '' ? lo : Number(max);
    if (lo > MAX_REPEAT || hi > MAX_REPEAT) unsupported(`a repetition count over ${MAX_REPEAT} ("${text}")`);
    this.#pos += text.length;
    // Numbers re-printed: RE2 reads `{007}` differently from JavaScript.
    return max === undefined ? `{${lo}}` : max === '' ? `{${lo},}` : `{${lo},${hi}}`;
  }

  /** An escape outside a character class, `\` at the current position. */
  #atomEscape(): string {
    const src = this.#src;
    const next = src.charAt(this.#pos + 1);
    this.#pos += 2;
    switch (next) {
      // Same meaning in RE2, with or without ignoreCase (no letter outside ASCII is equal to one inside).
      case 'd':
      case 'D':
      case 'w':
      case 'W':
      case 'b':
      case 'B':
        return `\\${next}`;
      case 's':
        return this.#set(SPACE);
      case 'S':
        return this.#set(SPACE, true);
      case '0':
        if (isDigit(src.charAt(this.#pos))) unsupported('an octal escape ("\\0" followed by digits)');
        return literal(0);
      case 'k':
        if (this.#hasNamedGroups) unsupported('a named backreference ("\\k<…>")');
        return this.#char(next.charCodeAt(0));
      case '':
        return unsupported('a trailing backslash');
      default: {
        if (next >= '1' && next <= '9') unsupported(`a backreference or octal escape ("\\${next}")`);
        if (next === 'c' && !/[A-Za-z]/.test(src.charAt(this.#pos))) {
          // Annex B: `\c` without a control letter is a literal backslash followed by `c`.
          this.#pos--;
          return literal(0x5c);
        }
        return this.#char(this.#characterEscape(next));
      }
    }
  }

  /**
   * The code unit of a character escape whose letter (`next`) was just consumed: controls, `\xHH`,
   * `\uHHHH`, `\cX`, or an identity escape (the character itself).
   */
  #characterEscape(next: string): number {
    const control = CONTROL_ESCAPES[next];
    if (control !== undefined) return control;
    const hexDigits = next === 'x' ? 2 : next === 'u' ? 4 : 0;
    if (hexDigits > 0) {
      const hex = this.#src.slice(this.#pos, this.#pos + hexDigits);
      if (hex.length === hexDigits && /^[0-9A-Fa-f]+$/.test(hex)) {
        this.#pos += hexDigits;
        return Number.parseInt(hex, 16);
      }
      return next.charCodeAt(0);
    }
    if (next === 'c') {
      const letter = this.#src.charCodeAt(this.#pos);
      this.#pos++;
      return letter % 32;
    }
    return this.#src.charCodeAt(this.#pos - 1);
  }

  /** A `[...]` class at the current position. */
  #characterClass(): string {
    const src = this.#src;
    this.#pos++;
    const negated = src.charAt(this.#pos) === '^';
    if (negated) this.#pos++;
    const ranges: Range[] = [];
    while (src.charAt(this.#pos) !== ']') {
      if (this.#pos >= src.length) unsupported('an unterminated character class');
      const first = this.#classAtom();
      const isRange = src.charAt(this.#pos) === '-' && src.charAt(this.#pos + 1) !== ']';
      if (!isRange) {
        addAtom(ranges, first);
        continue;
      }
      this.#pos++;
      const last = this.#classAtom();
      if ('char' in first && 'char' in last) {
        if (first.char > last.char) unsupported('a character range out of order');
        ranges.push([first.char, last.char]);
      } else {
        // Annex B: a range with a class escape at either end is the escape, a '-', and the other end.
        addAtom(ranges, first);
        ranges.push([0x2d, 0x2d]);
        addAtom(ranges, last);
      }
    }
    this.#pos++;
    return this.#set(ranges, negated);
  }

  #classAtom(): ClassAtom {
    const src = this.#src;
    const char = src.charAt(this.#pos);
    if (char !== '\\') {
      this.#pos++;
      return { char: codeUnit(src.charCodeAt(this.#pos - 1)) };
    }
    const next = src.charAt(this.#pos + 1);
    this.#pos += 2;
    const set = SET_ESCAPES[next];
    if (set !== undefined) return { set };
    if (next === 'b') return { char: 8 };
    if (next >= '0' && next <= '7') return { char: this.#legacyOctal(next) };
    if (next === 'c' && !/[A-Za-z0-9_]/.test(src.charAt(this.#pos))) {
      this.#pos--;
      return { char: 0x5c };
    }
    if (next === '') unsupported('a trailing backslash');
    return { char: codeUnit(this.#characterEscape(next)) };
  }

  /** Annex B octal escape in a class: up to three digits, at most 0o377. */
  #legacyOctal(first: string): number {
    let value = Number(first);
    const maxDigits = first <= '3' ? 3 : 2;
    for (let digits = 1; digits < maxDigits; digits++) {
      const next = this.#src.charAt(this.#pos);
      if (next < '0' || next > '7') break;
      value = value * 8 + Number(next);
      this.#pos++;
    }
    return value;
  }
}

function addAtom(ranges: Range[], atom: ClassAtom): void {
  if ('char' in atom) ranges.push([atom.char, atom.char]);
  else ranges.push(...atom.set);
}

function isDigit(char: string): boolean {
  return char >= '0' && char <= '9';
}

function codeUnit(code: number): number {
  if (code >= 0xd800 && code <= 0xdfff) {
    unsupported('a character outside the Basic Multilingual Plane (an emoji, say)');
  }
  return code;
}

function literal(code: number): string {
  const char = String.fromCharCode(codeUnit(code));
  if (RE2_META.includes(char)) return `\\${char}`;
  if (code >= 0x20 && code < 0x7f) return char;
  return `\\x{${code.toString(16)}}`;
}

function unsupported(construct: string): never {
  throw new UnsupportedPatternError(`${construct} is not supported by the linear-time engine`);
}
