import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { referenceGrep } from './grep-reference.js';
import { makeCtx, makeSandbox, type Sandbox, textOf } from './helpers.js';

let sb: Sandbox;
const put = async (rel: string, content: string | Buffer) => {
  await fs.mkdir(path.dirname(path.join(sb.root, rel)), { recursive: true });
  await fs.writeFile(path.join(sb.root, rel), content);
};
beforeEach(async () => {
  sb = await makeSandbox();
  await put('src/app.ts', 'import x;\n// MARKER: fix app\nexport {};\n');
  await put('src/lib/util.ts', 'export const marker = 1;\r\n// MARKER later\r\n');
  await put('notes.md', 'MARKER: write notes\n');
  await put('node_modules/dep/index.js', '// MARKER in a dependency\n');
  await put('.git/HEAD', 'MARKER in git\n');
  await put('image.bin', Buffer.from('MARKER\0binary'));
});
afterEach(async () => {
  await sb.cleanup();
});

const grep = async (input: unknown, options = {}) => textOf(await sb.call('grep', input, options));

describe('grep', () => {
  it('finds matching lines as path:line:text, in path order', async () => {
    expect(await grep({ pattern: 'MARKER' })).toBe(
      [
        'notes.md:1:MARKER: write notes',
        'src/app.ts:2:// MARKER: fix app',
        'src/lib/util.ts:2:// MARKER later',
        '[skipped files: 1 binary]',
      ].join('\n'),
    );
  });

  it('never follows symbolic links, so nothing outside is searched', async () => {
    const out = await grep({ pattern: 'SECRET' });
    expect(out).toBe('No matches for "SECRET" in .\n[skipped files: 1 binary]');
  });

  it('matches without regard to case when asked', async () => {
    expect(await grep({ pattern: 'marker', path: 'src', ignoreCase: true })).toBe(
      [
        'src/app.ts:2:// MARKER: fix app',
        'src/lib/util.ts:1:export const marker = 1;',
        'src/lib/util.ts:2:// MARKER later',
      ].join('\n'),
    );
  });

  it('filters by a glob on the file name, or on the path when it has a slash', async () => {
    expect(await grep({ pattern: 'MARKER', glob: '*.md' })).toBe('notes.md:1:MARKER: write notes');
    expect(await grep({ pattern: 'MARKER', glob: 'src/**/*.ts' })).toBe(
      'src/app.ts:2:// MARKER: fix app\nsrc/lib/util.ts:2:// MARKER later',
    );
    expect(await grep({ pattern: 'MARKER', glob: '{notes,app}.*' })).toBe(
      'notes.md:1:MARKER: write notes\nsrc/app.ts:2:// MARKER: fix app',
    );
  });

  it('searches one file when the path is a file', async () => {
    expect(await grep({ pattern: 'export', path: 'src/app.ts' })).toBe('src/app.ts:3:export {};');
  });

  it('stops at maxResults and says so', async () => {
    expect(await grep({ pattern: 'MARKER', maxResults: 2 })).toBe(
      [
        'notes.md:1:MARKER: write notes',
        'src/app.ts:2:// MARKER: fix app',
        '[stopped after 2 matches; narrow the pattern, path or glob to see the rest]',
        '[skipped files: 1 binary]',
      ].join('\n'),
    );
  });

  it('does not claim a cap when the results fit exactly', async () => {
    expect(await grep({ pattern: 'MARKER', path: 'src', maxResults: 2 })).not.toContain('stopped after');
  });

  it('skips files over maxReadBytes and says so', async () => {
    await put('big.txt', `MARKER ${'x'.repeat(100)}\n`);
    expect(await grep({ pattern: 'MARKER', glob: 'big.txt' }, { maxReadBytes: 50 })).toBe(
      'No matches for "MARKER" in .\n[skipped files: 1 too large]',
    );
  });

  it('cuts very long lines', async () => {
    await put('long.txt', `MARKER ${'y'.repeat(1000)}\n`);
    const out = await grep({ pattern: 'MARKER', glob: 'long.txt' });
    expect(out.length).toBeLessThan(500);
    expect(out.endsWith('…')).toBe(true);
  });

  it('gives the same results as the implementation it replaced, for ordinary searches', async () => {
    await put('src/crlf.ts', 'const a = 1;\r\nexport const b = 2;\r\n// MARKER crlf\r\n');
    await put('docs/unicode.md', 'Résumé: café\nΣίσυφος σοφός\n\n  indented MARKER\n');
    await put('src/long.ts', `// MARKER ${'z'.repeat(600)}\n`);
    await put('src/many.txt', Array.from({ length: 30 }, (_, i) => `item ${i} MARKER`).join('\n'));
    const patterns = [
      'MARKER',
      'marker',
      'export\\s+\\w+',
      '^\\s*//',
      ';$',
      '\\bconst\\b',
      'caf|Σ',
      '[A-Z]{3,}',
      'é',
      '\\d+',
      'MARKER.*z',
      '(fix|write) \\w+',
      'σ',
    ];
    for (const pattern of patterns) {
      for (const ignoreCase of [false, true]) {
        for (const glob of [undefined, '*.ts', 'src/**', '{notes,app}.*', '**/*.md']) {
          const input = { pattern, ignoreCase, ...(glob === undefined ? {} : { glob }) };
          expect([input, await grep(input)]).toEqual([input, referenceGrep(sb.root, input)]);
        }
        for (const input of [
          { pattern, ignoreCase, maxResults: 5 },
          { pattern, ignoreCase, path: 'src' },
        ]) {
          expect([input, await grep(input)]).toEqual([input, referenceGrep(sb.root, input)]);
        }
      }
    }
  });

  it('does not count the end of a file after its last line break as a line', async () => {
    await put('two-lines.txt', 'one\n\n');
    await put('empty.txt', '');
    expect(await grep({ pattern: '^$', glob: '{two-lines,empty}.txt' })).toBe('two-lines.txt:2:');
  });

  it('explains an invalid regular expression', async () => {
    await expect(grep({ pattern: 'fix(' })).rejects.toThrow(
      'pattern "fix(" is not a valid JavaScript regular expression',
    );
  });

  it('explains an invalid glob', async () => {
    await expect(grep({ pattern: 'MARKER', glob: '{a,b' })).rejects.toThrow('has an unclosed "{"');
  });

  it('says when the path does not exist', async () => {
    await expect(grep({ pattern: 'MARKER', path: 'nope' })).rejects.toThrow('path "nope" does not exist');
  });
});

describe('grep with a pattern that backtracks catastrophically', () => {
  // `^(a+)+$` tries every way to split a run of a's before failing on the "!": 2^26 ways here, seconds of work.
  const EVIL_LINE = `${'a'.repeat(26)}!`;
  beforeEach(async () => {
    await put('evil.txt', `${EVIL_LINE}\n${'a'.repeat(8)}\n`);
  });

  it('keeps the event loop turning, then answers with the linear-time engine', async () => {
    let timerFired = false;
    const timer = setTimeout(() => {
      timerFired = true;
    }, 100);
    // Decided when grep resolves, before any timer can run after it.
    const firedFirst = grep({ pattern: '^(a+)+$', path: 'evil.txt' }).then((out) => ({ out, timerFired }));
    const { out, timerFired: firedBeforeGrepResolved } = await firedFirst;
    clearTimeout(timer);
    expect(firedBeforeGrepResolved).toBe(true);
    expect(out).toBe(
      [
        'evil.txt:2:aaaaaaaa',
        '[the pattern backtracked for over 500 ms on evil.txt; from there on it was matched by the linear-time engine]',
      ].join('\n'),
    );
  });

  it('skips a file neither engine can finish, names it, and searches the rest', async () => {
    await put('fine.txt', 'aaa\n');
    // The lookahead keeps the linear-time engine out; JavaScript's engine never finishes evil.txt.
    const out = await grep({ pattern: '(?=a)^(a+)+$', glob: '*.txt' }, { grep: { fileBudgetMs: 100 } });
    expect(out).toBe(
      [
        'fine.txt:1:aaa',
        '[not searched: evil.txt, where matching took over 100 ms (the linear-time engine cannot run it: ' +
          'lookahead "(?=" is not supported by the linear-time engine)]',
      ].join('\n'),
    );
  });

  it('skips a file that is too slow for the linear-time engine too', async () => {
    // A large program over a long line: linear in the line for RE2, still seconds of work.
    await put('long.txt', `${'a'.repeat(100_000)}!\n`);
    await put('short.txt', 'ab\n');
    const out = await grep(
      { pattern: '(\\w+\\s?){1000}$|b', glob: '{long,short}.txt' },
      { grep: { fileBudgetMs: 100 } },
    );
    expect(out).toBe(
      [
        'short.txt:1:ab',
        '[the pattern backtracked for over 100 ms on long.txt; from there on it was matched by the linear-time engine]',
        '[not searched: long.txt, where matching took over 100 ms]',
      ].join('\n'),
    );
  });

  it('stops at the search time budget and says how far it got', async () => {
    const out = await grep(
      { pattern: '(?=a)^(a+)+$', path: 'evil.txt' },
      { grep: { searchBudgetMs: 200, fileBudgetMs: 60_000 } },
    );
    expect(out).toBe(
      'No matches for "(?=a)^(a+)+$" in evil.txt\n' +
        '[stopped after the 200 ms time budget, with 0 files searched; narrow the path or glob to search the rest]',
    );
  });

  it('stops at once when the call is aborted', async () => {
    const controller = new AbortController();
    const pending = sb.call(
      'grep',
      { pattern: '(?=a)^(a+)+$', path: 'evil.txt' },
      {},
      makeCtx({ signal: controller.signal }),
    );
    setTimeout(() => controller.abort(new Error('cancelled by the test')), 20);
    await expect(pending).rejects.toThrow('cancelled by the test');
  });
});

describe('grep options', () => {
  it('tells the model its budgets and what the linear-time engine cannot do', () => {
    const tool = sb.tools({ grep: { searchBudgetMs: 3_000, fileBudgetMs: 250 } }).get('grep');
    const description = tool?.descriptor.description ?? '';
    expect(description).toContain('Stops after maxResults matches or 3 s');
    expect(description).toContain('backtracks for over 250 ms');
    expect(description).toContain('no backreferences (\\1, \\k<name>) and no lookahead or lookbehind');
  });

  it('refuses a budget that is not a positive number', () => {
    expect(() => sb.tools({ grep: { fileBudgetMs: 0 } })).toThrow(
      'createBuiltinTools: grep.fileBudgetMs must be a positive number, got 0',
    );
  });

  it('refuses a glob longer than it will match', async () => {
    await expect(grep({ pattern: 'x', glob: '*'.repeat(501) })).rejects.toThrow(
      'glob: Too big: expected string to have <=500 characters',
    );
  });
});
