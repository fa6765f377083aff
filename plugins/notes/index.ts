import { definePlugin, defineTool, type ToolContext } from '@toolhost/plugin-sdk';
import * as z from 'zod';

/**
 * Markdown notes in the project's `notes/` folder, through `ctx.fs`. The plugin declares the
 * folder in `permissions.fs`; nothing works until config grants it:
 *
 *   plugins.notes.grants.fs = { read: ['notes'], write: ['notes'] }
 *
 * Without the grant every call fails with the host's message naming the permission and the
 * config key. Note names are slugs (checked by the input schema), so a name can never point
 * outside the folder; the host confines paths (and symbolic links) to the granted root anyway.
 */

const DIR = 'notes';
const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const MAX_SLUG = 64;

function slugify(title: string): string {
  return title
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, MAX_SLUG)
    .replace(/^-+|-+$/g, '');
}

const pathOf = (name: string) => `${DIR}/${name}.md`;

/** The host words a missing file or folder as `… does not exist`; any other failure is rethrown. */
function isMissing(error: unknown): boolean {
  return error instanceof Error && error.message.includes('does not exist');
}

async function exists(ctx: ToolContext, path: string): Promise<boolean> {
  try {
    await ctx.fs.stat(path);
    return true;
  } catch (error) {
    if (isMissing(error)) return false;
    throw error;
  }
}

/** A note is `# Title`, a blank line, then the body. */
function render(title: string, body: string): string {
  return `# ${title}\n\n${body.trimEnd()}\n`;
}

function titleOf(markdown: string, fallback: string): string {
  const first = markdown.split('\n', 1)[0] ?? '';
  return first.startsWith('# ') ? first.slice(2).trim() : fallback;
}

const noteName = z
  .string({ error: 'name must be a string' })
  .regex(SLUG, {
    error: 'name must be a note name as notes_list shows it: lower-case letters, digits and single dashes',
  })
  .max(MAX_SLUG, { error: `name must be at most ${MAX_SLUG} characters` });

const notesAdd = defineTool({
  name: 'notes_add',
  title: 'Add a note',
  description:
    "Saves a Markdown note in the project's notes/ folder as notes/<name>.md, where <name> is a " +
    'slug of the title ("Shopping list" → shopping-list). Refuses to replace an existing note ' +
    "unless overwrite is true. Returns the note's name for notes_read.",
  input: z.object({
    title: z
      .string({ error: 'title must be a string' })
      .trim()
      .min(1, { error: 'title must not be empty', abort: true })
      .max(200, { error: 'title must be at most 200 characters' })
      .regex(/^[^\r\n]*$/, { error: 'title must be a single line' })
      .refine((t) => slugify(t) !== '', {
        error: 'title must contain at least one ASCII letter or digit (the file name is made from it)',
      })
      .describe("The note's title; its slug becomes the file name"),
    body: z
      .string({ error: 'body must be a string' })
      .max(100_000, { error: 'body must be at most 100000 characters' })
      .describe('The note in Markdown'),
    overwrite: z.boolean().default(false).describe('Replace a note of the same name'),
  }),
  output: z.object({ name: z.string(), path: z.string(), replaced: z.boolean() }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  execute: async ({ title, body, overwrite }, ctx) => {
    const name = slugify(title);
    const path = pathOf(name);
    const replaced = await exists(ctx, path);
    if (replaced && !overwrite) {
      throw new Error(`a note named "${name}" exists already; pass overwrite: true to replace it`);
    }
    await ctx.fs.writeFile(path, render(title, body));
    return {
      content: [{ type: 'text', text: `${replaced ? 'Replaced' : 'Saved'} note "${name}" (${path})` }],
      structuredContent: { name, path, replaced },
    };
  },
});

const notesList = defineTool({
  name: 'notes_list',
  title: 'List notes',
  description:
    'Lists the notes in the project\'s notes/ folder, one "name: title" per line, sorted by ' +
    'name. Use a name with notes_read.',
  input: z.object({}),
  output: z.object({ notes: z.array(z.object({ name: z.string(), title: z.string() })) }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  execute: async (_input, ctx) => {
    let entries: string[];
    try {
      entries = await ctx.fs.readdir(DIR);
    } catch (error) {
      if (!isMissing(error)) throw error;
      entries = [];
    }
    const names = entries
      .filter((entry) => entry.endsWith('.md'))
      .map((entry) => entry.slice(0, -'.md'.length))
      .filter((name) => SLUG.test(name));
    const notes = [];
    for (const name of names) {
      let title = name;
      try {
        title = titleOf(await ctx.fs.readFile(pathOf(name)), name);
      } catch (error) {
        // One unreadable entry (say, a link the host refuses to follow) must not hide the others.
        ctx.log.warn(`cannot read ${pathOf(name)}`, { error: String(error) });
      }
      notes.push({ name, title });
    }
    const text =
      notes.length === 0
        ? 'No notes yet. Add one with notes_add.'
        : notes.map((note) => `${note.name}: ${note.title}`).join('\n');
    return { content: [{ type: 'text', text }], structuredContent: { notes } };
  },
});

const notesRead = defineTool({
  name: 'notes_read',
  title: 'Read a note',
  description:
    "Returns the Markdown of one note from the project's notes/ folder, by the name notes_list shows.",
  input: z.object({ name: noteName.describe('The note\'s name, e.g. "shopping-list" (no folder, no .md)') }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  execute: async ({ name }, ctx) => {
    try {
      return await ctx.fs.readFile(pathOf(name));
    } catch (error) {
      if (isMissing(error)) throw new Error(`there is no note named "${name}"; notes_list shows the names`);
      throw error;
    }
  },
});

export default definePlugin({
  id: 'notes',
  version: '1.0.0',
  description: "Markdown notes in the project's notes/ folder",
  permissions: { fs: { read: [DIR], write: [DIR] } },
  tools: [notesAdd, notesList, notesRead],
});
