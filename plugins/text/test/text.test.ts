import type { ToolHost } from '@toolhost/host';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectWith, type TestProject, textOf, visibleNames } from '../../_testing/host.js';

let project: TestProject;
let host: ToolHost;

beforeAll(async () => {
  project = await projectWith('text');
  host = await project.host();
});

afterAll(async () => {
  await project.dispose();
});

const call = (name: string, input: unknown) => host.session().call(name, input);

describe('text plugin', () => {
  it('loads with its three tools visible, annotated read-only', () => {
    expect(host.plugins).toEqual([
      expect.objectContaining({ id: 'text', status: 'loaded', diagnostics: [] }),
    ]);
    expect(visibleNames(host)).toEqual(['text_case', 'text_slug', 'text_stats']);
    for (const { descriptor } of host.plan().visible) {
      expect(descriptor.owner).toEqual({ kind: 'plugin', pluginId: 'text' });
      expect(descriptor.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true });
      expect(descriptor.description.length).toBeGreaterThan(40);
    }
  });

  it('publishes the output schema of text_stats', () => {
    const stats = host.plan().visible.find((e) => e.descriptor.name === 'text_stats');
    expect(stats?.descriptor.outputSchema).toMatchObject({
      type: 'object',
      properties: { characters: { type: 'integer' }, words: { type: 'integer' }, lines: { type: 'integer' } },
    });
  });

  describe('text_stats', () => {
    it('counts characters, words and lines, with structured output', async () => {
      const { result, status } = await call('text_stats', { text: "Hello, wörld!\nIt's 2 o'clock.\n" });
      expect(status).toBe('ok');
      expect(result.structuredContent).toEqual({ characters: 30, words: 5, lines: 2 });
      expect(textOf(result)).toBe('5 words, 2 lines, 30 characters');
    });

    it('counts nothing in an empty text and code points, not UTF-16 units', async () => {
      expect((await call('text_stats', { text: '' })).result.structuredContent).toEqual({
        characters: 0,
        words: 0,
        lines: 0,
      });
      expect((await call('text_stats', { text: '😀 ok' })).result.structuredContent).toEqual({
        characters: 4,
        words: 1,
        lines: 1,
      });
    });

    it('refuses a missing text with the message of its schema', async () => {
      const { result, status } = await call('text_stats', {});
      expect(status).toBe('invalid-input');
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe('Invalid input for tool "text_stats": at "text": text must be a string');
    });
  });

  describe('text_case', () => {
    it.each([
      ['upper', 'Hello wide World', 'HELLO WIDE WORLD'],
      ['lower', 'Hello wide World', 'hello wide world'],
      ['title', "the CAT's hat-trick", "The Cat's Hat-Trick"],
      ['sentence', 'HELLO THERE. HOW are you?', 'Hello there. How are you?'],
      ['snake', 'parseHTTPResponse v2', 'parse_http_response_v2'],
      ['kebab', 'Hello, wide World!', 'hello-wide-world'],
      ['camel', 'user id_field', 'userIdField'],
    ])('converts to %s', async (to, text, expected) => {
      const { result } = await call('text_case', { text, to });
      expect(result.isError).toBeUndefined();
      expect(textOf(result)).toBe(expected);
    });

    it('refuses an unknown case, listing the valid ones', async () => {
      const { result } = await call('text_case', { text: 'x', to: 'shouting' });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe(
        'Invalid input for tool "text_case": at "to": to must be one of: upper, lower, title, sentence, snake, kebab, camel',
      );
    });
  });

  describe('text_slug', () => {
    it('makes a slug, dropping accents and punctuation', async () => {
      const { result } = await call('text_slug', { text: '  Crème Brûlée: the 2nd try!  ' });
      expect(textOf(result)).toBe('creme-brulee-the-2nd-try');
    });

    it('takes another separator and cuts long slugs at a word boundary', async () => {
      const { result } = await call('text_slug', {
        text: 'One two three four',
        separator: '_',
        maxLength: 12,
      });
      expect(textOf(result)).toBe('one_two');
      const long = await call('text_slug', { text: 'Supercalifragilistic', maxLength: 5 });
      expect(textOf(long.result)).toBe('super');
    });

    it('refuses input its schema rejects, with the schema messages', async () => {
      const empty = await call('text_slug', { text: '?!' });
      expect(textOf(empty.result)).toBe(
        'Invalid input for tool "text_slug": at "text": text must contain at least one letter or digit',
      );
      const bad = await call('text_slug', { text: 'ok', separator: '/', maxLength: 0 });
      expect(textOf(bad.result)).toBe(
        'Invalid input for tool "text_slug": at "separator": separator must be "-" or "_"; ' +
          'at "maxLength": maxLength must be at least 1',
      );
    });

    it('fails with a reason when no letter has an ASCII form', async () => {
      const { result, status } = await call('text_slug', { text: '日本語' });
      expect(status).toBe('tool-error');
      expect(textOf(result)).toBe(
        'Tool "text_slug" failed: the text has no letters or digits that have an ASCII form',
      );
    });
  });
});
