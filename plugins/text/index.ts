import { definePlugin, defineTool } from '@toolhost/plugin-sdk';
import * as z from 'zod';

/**
 * Pure text utilities: no permissions, no config, no I/O. The smallest useful plugin, and the
 * place to see input descriptions, custom validation messages, annotations and an `output`
 * schema (`text_stats` returns `structuredContent` checked against it).
 */

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}\p{N}]+)*/gu;

/** Words of an identifier or a sentence: `parseHTTPResponse v2` → parse, HTTP, Response, v2. */
function wordsOf(text: string): string[] {
  const spaced = text
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2');
  return spaced.match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Lines as an editor counts them: a final line break does not start another line. */
function countLines(text: string): number {
  if (text === '') return 0;
  const lines = text.split(/\r\n|\r|\n/);
  return lines[lines.length - 1] === '' ? lines.length - 1 : lines.length;
}

/** Lower-case ASCII letters and digits joined by `separator`; accents are dropped (é → e). */
function slugify(text: string, separator: string, maxLength: number): string {
  const ascii = text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
  if (ascii === '') return '';
  const words = ascii.split(' ');
  let slug = '';
  for (const word of words) {
    const next = slug === '' ? word : `${slug}${separator}${word}`;
    if (next.length > maxLength) break;
    slug = next;
  }
  // A first word longer than the limit is cut; otherwise the slug ends at a word boundary.
  return slug === '' ? (words[0] ?? '').slice(0, maxLength) : slug;
}

const CASES = ['upper', 'lower', 'title', 'sentence', 'snake', 'kebab', 'camel'] as const;
type Case = (typeof CASES)[number];

function convertCase(text: string, to: Case): string {
  switch (to) {
    case 'upper':
      return text.toUpperCase();
    case 'lower':
      return text.toLowerCase();
    case 'title':
      return text.toLowerCase().replace(/(^|[^\p{L}\p{N}'’])(\p{L})/gu, (_, before, letter) => {
        return `${before}${letter.toUpperCase()}`;
      });
    case 'sentence':
      return text
        .toLowerCase()
        .replace(/(^\s*|[.!?]\s+)(\p{L})/gu, (_, before, letter) => `${before}${letter.toUpperCase()}`);
    case 'snake':
      return wordsOf(text)
        .map((w) => w.toLowerCase())
        .join('_');
    case 'kebab':
      return wordsOf(text)
        .map((w) => w.toLowerCase())
        .join('-');
    case 'camel':
      return wordsOf(text)
        .map((w, i) => (i === 0 ? w.toLowerCase() : w.charAt(0).toUpperCase() + w.slice(1).toLowerCase()))
        .join('');
  }
}

const stats = z.object({
  characters: z.number().int().describe('Unicode code points, spaces and line breaks included'),
  words: z
    .number()
    .int()
    .describe('Runs of letters and digits (apostrophes inside a word count as part of it)'),
  lines: z.number().int().describe('Lines; a final line break does not start a new line'),
});

const textStats = defineTool({
  name: 'text_stats',
  title: 'Text statistics',
  description:
    'Counts the characters, words and lines of a text. Use it instead of counting yourself: ' +
    'models miscount. Returns a one-line summary and the counts as structured output.',
  input: z.object({
    text: z.string({ error: 'text must be a string' }).describe('The text to measure'),
  }),
  output: stats,
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  execute: ({ text }) => {
    const counts = {
      characters: [...text].length,
      words: text.match(WORD)?.length ?? 0,
      lines: countLines(text),
    };
    return {
      content: [
        {
          type: 'text',
          text: `${counts.words} words, ${counts.lines} lines, ${counts.characters} characters`,
        },
      ],
      structuredContent: counts,
    };
  },
});

const textCase = defineTool({
  name: 'text_case',
  title: 'Change text case',
  description:
    'Rewrites a text in another case. upper / lower / title ("Hello World") / sentence ' +
    '("Hello world. Bye.") keep the spacing and punctuation; snake ("hello_world"), kebab ' +
    '("hello-world") and camel ("helloWorld") split the text into words (also at camelCase ' +
    'boundaries) and join them, dropping punctuation.',
  input: z.object({
    text: z.string({ error: 'text must be a string' }).describe('The text to convert'),
    to: z.enum(CASES, { error: `to must be one of: ${CASES.join(', ')}` }).describe('The target case'),
  }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  execute: ({ text, to }) => convertCase(text, to),
});

const textSlug = defineTool({
  name: 'text_slug',
  title: 'Make a slug',
  description:
    'Turns a title or phrase into a URL- and file-name-safe slug: lower-case ASCII letters and ' +
    'digits joined by a separator, accents removed ("Crème Brûlée!" → "creme-brulee"). Long ' +
    'slugs are cut at a word boundary.',
  input: z.object({
    text: z
      .string({ error: 'text must be a string' })
      .refine((t) => /[\p{L}\p{N}]/u.test(t), { error: 'text must contain at least one letter or digit' })
      .describe('The text to turn into a slug'),
    separator: z
      .enum(['-', '_'], { error: 'separator must be "-" or "_"' })
      .default('-')
      .describe('What joins the words'),
    maxLength: z
      .number()
      .int({ error: 'maxLength must be a whole number' })
      .min(1, { error: 'maxLength must be at least 1' })
      .max(200, { error: 'maxLength must be at most 200' })
      .default(80)
      .describe('The longest slug to return'),
  }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  execute: ({ text, separator, maxLength }) => {
    const slug = slugify(text, separator, maxLength);
    // Letters without an ASCII form (e.g. "日本") leave nothing behind.
    if (slug === '') throw new Error('the text has no letters or digits that have an ASCII form');
    return slug;
  },
});

export default definePlugin({
  id: 'text',
  version: '1.0.0',
  description: 'Pure text utilities: statistics, case conversion and slugs',
  tools: [textStats, textCase, textSlug],
});
