/**
 * The one place where text reaches a terminal: `Output.write`. Everything written is escaped but
 * the CLI's own colours and progress line, which text from elsewhere cannot forge.
 */
import { describe, expect, it } from 'vitest';
import { outputFor, startProgress, styleFor } from '../../packages/host/src/cli/io.js';
import { table } from '../../packages/host/src/cli/view.js';

function capture(isTTY: boolean) {
  const written: string[] = [];
  const output = outputFor({ isTTY, write: (text: string) => written.push(text) > 0 }, {});
  return { output, text: () => written.join('') };
}

describe('Output.write', () => {
  it('shows C0, DEL, C1 and bidi controls escaped; keeps tab, newline and CRLF', () => {
    const { output, text } = capture(false);
    output.write(
      'a\x1b[2J\x07\b\r\x00\x7f\u0085\u009b\u009d\u202a\u202e\u2066\u2069\u200e\u200f\u061cz\tt\nn\r\nend',
    );
    expect(text()).toBe(
      'a\\x1b[2J\\x07\\x08\\x0d\\x00\\u007f\\u0085\\u009b\\u009d\\u202a\\u202e\\u2066\\u2069\\u200e\\u200f\\u061cz\tt\nn\r\nend',
    );
  });

  it('lets the CLI’s own colours and progress line through on a terminal, and escapes a copy of them in text', () => {
    const { output, text } = capture(true);
    const style = styleFor(output);
    output.write(`${style.red('bad')} \x1b[31mforged\x1b[39m`);
    expect(text()).toBe('\x1b[31mbad\x1b[39m \\x1b[31mforged\\x1b[39m');

    const progress = capture(true);
    startProgress(progress.output, 'loading \x1b[2K').stop();
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the progress line's own sequences.
    expect(progress.text()).toMatch(/^\r\x1b\[K. loading \\x1b\[2K \d\.\ds\r\x1b\[K$/);
  });

  it('keeps JSON valid and exact: the escapes it adds are JSON escapes', () => {
    const { output, text } = capture(false);
    const value = { s: 'x\x1b\u009b\u202e\x7f\u2066y' };
    output.write(JSON.stringify(value));
    expect(JSON.parse(text())).toEqual(value);
  });

  it('table widths count escapes as shown and colours as nothing', () => {
    const style = styleFor(capture(true).output);
    const rows = table([
      [style.green('a\x1b'), 'x'],
      ['abcdef', 'y'],
    ]);
    const { output, text } = capture(true);
    output.write(rows.join('\n'));
    // `a\x1b` is shown as five characters, padded to six like `abcdef`.
    expect(text()).toBe('  \x1b[32ma\\x1b\x1b[39m   x\n  abcdef  y');
  });
});
