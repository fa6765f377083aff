import { describe, expect, it } from 'vitest';
import {
  type SearchFile,
  type SearchRequest,
  searchFiles,
} from '../../../src/sources/builtin/grep-search.js';

const encode = (text: string) => new TextEncoder().encode(text);

function request(overrides: Partial<SearchRequest> & Pick<SearchRequest, 'pattern'>): SearchRequest {
  return {
    ignoreCase: false,
    maxResults: 1000,
    budgetMs: 20_000,
    fileBudgetMs: 5_000,
    maxFileBytes: 1024 * 1024,
    signal: new AbortController().signal,
    ...overrides,
  };
}

async function* filesOf(entries: [string, string][], pulled?: { count: number }): AsyncGenerator<SearchFile> {
  for (const [rel, text] of entries) {
    if (pulled !== undefined) pulled.count++;
    yield { rel, data: encode(text) };
  }
}

/** Files f00…f39, each with three lines, the middle one matching `needle`. */
const manyFiles: [string, string][] = Array.from({ length: 40 }, (_, i) => {
  const name = `f${String(i).padStart(2, '0')}.ts`;
  return [name, `const before = ${i};\nneedle in ${name}\nconst after = ${i};\n`];
});

describe('searchFiles', () => {
  it('reports hits in file order, then line order, from many files', async () => {
    const outcome = await searchFiles(filesOf(manyFiles), request({ pattern: 'needle|const' }));
    const expected = manyFiles.flatMap(([rel, text]) =>
      text
        .split('\n')
        .slice(0, 3)
        .map((line, i) => ({ rel, line: i + 1, text: line })),
    );
    expect(outcome.hits).toEqual(expected);
    expect(outcome).toMatchObject({ capped: false, outOfTime: false, searchedFiles: 40, tooSlow: [] });
  });

  it('gives the same hits with the linear-time engine as with JavaScript’s', async () => {
    for (const pattern of ['needle', 'f1\\d\\.ts$', '^const \\w+ = [0-9]+;$', 'Needle|after']) {
      for (const ignoreCase of [false, true]) {
        const native = await searchFiles(filesOf(manyFiles), request({ pattern, ignoreCase }));
        const linear = await searchFiles(
          filesOf(manyFiles),
          request({ pattern, ignoreCase, engine: 'linear' }),
        );
        expect(native.hits.length).toBeGreaterThan(0);
        expect(linear.hits).toEqual(native.hits);
      }
    }
  });

  it('after a file stalls, reports every other file once and in order', async () => {
    const files: [string, string][] = [
      ['a.txt', 'aaa\n'],
      ['b.txt', 'aaaa\n'],
      ['evil.txt', `${'a'.repeat(26)}!\naaaaa\n`],
      ['c.txt', 'aaaaaa\n'],
      ['d.txt', 'x\naa\n'],
    ];
    const outcome = await searchFiles(filesOf(files), request({ pattern: '^(a+)+$', fileBudgetMs: 100 }));
    expect(outcome.hits.map((hit) => `${hit.rel}:${hit.line}`)).toEqual([
      'a.txt:1',
      'b.txt:1',
      'evil.txt:2',
      'c.txt:1',
      'd.txt:2',
    ]);
    expect(outcome.linearFrom).toBe('evil.txt');
    expect(outcome.searchedFiles).toBe(5);
  });

  it('stops at maxResults and says the cap cut something off', async () => {
    const outcome = await searchFiles(filesOf(manyFiles), request({ pattern: 'needle', maxResults: 3 }));
    expect(outcome.hits.map((hit) => hit.rel)).toEqual(['f00.ts', 'f01.ts', 'f02.ts']);
    expect(outcome.capped).toBe(true);
  });

  it('holds only a few files in flight while the worker is busy', async () => {
    const pulled = { count: 0 };
    const files: [string, string][] = [['evil.txt', `${'a'.repeat(40)}!\n`], ...manyFiles];
    // The first file never finishes (lookahead keeps the linear engine out; the file budget is long).
    const outcome = await searchFiles(
      filesOf(files, pulled),
      request({ pattern: '(?=a)^(a+)+$', fileBudgetMs: 60_000, budgetMs: 300 }),
    );
    expect(outcome.outOfTime).toBe(true);
    expect(outcome.searchedFiles).toBe(0);
    expect(pulled.count).toBeLessThanOrEqual(33);
  });

  it('rejects an invalid pattern even when there is no file to search', async () => {
    await expect(searchFiles(filesOf([]), request({ pattern: 'fix(' }))).rejects.toThrow(
      'pattern "fix(" is not a valid JavaScript regular expression: Invalid regular expression: /fix(/: Unterminated group',
    );
  });

  it('says which construct the linear-time engine cannot run when asked to start with it', async () => {
    await expect(
      searchFiles(filesOf(manyFiles), request({ pattern: '(\\w)\\1', engine: 'linear' })),
    ).rejects.toThrow('cannot run on the linear-time engine: a backreference or octal escape ("\\1")');
  });

  it('rejects with the abort reason when aborted before it starts', async () => {
    const controller = new AbortController();
    controller.abort(new Error('gone'));
    await expect(
      searchFiles(filesOf(manyFiles), request({ pattern: 'x', signal: controller.signal })),
    ).rejects.toThrow('gone');
  });
});
