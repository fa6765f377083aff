import { mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type PluginSettings,
  projectWith,
  type TestProject,
  textOf,
  visibleNames,
} from '../../_testing/host.js';

const GRANTED: PluginSettings = { grants: { fs: { read: ['notes'], write: ['notes'] } } };

let project: TestProject;

beforeEach(async () => {
  project = await projectWith('notes');
});

afterEach(async () => {
  await project.dispose();
});

async function session(settings: PluginSettings = GRANTED) {
  const host = await project.host({ settings });
  return host.session();
}

const noteFile = (name: string) => path.join(project.root, 'notes', `${name}.md`);

describe('notes plugin', () => {
  it('loads its tools, visible whether or not the folder is granted', async () => {
    const host = await project.host();
    expect(host.plugins[0]).toMatchObject({ id: 'notes', status: 'loaded' });
    expect(host.plugins[0]?.manifest?.permissions).toEqual({ fs: { read: ['notes'], write: ['notes'] } });
    expect(visibleNames(host)).toEqual(['notes_add', 'notes_list', 'notes_read']);
    const annotations = Object.fromEntries(
      host.plan().visible.map((e) => [e.descriptor.name, e.descriptor.annotations]),
    );
    expect(annotations.notes_add).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(annotations.notes_list).toMatchObject({ readOnlyHint: true });
    expect(annotations.notes_read).toMatchObject({ readOnlyHint: true });
  });

  it('adds, lists and reads notes under notes/', async () => {
    const s = await session();
    const added = await s.call('notes_add', { title: 'Shopping list', body: '- milk\n- bread\n\n' });
    expect(added.status).toBe('ok');
    expect(textOf(added.result)).toBe('Saved note "shopping-list" (notes/shopping-list.md)');
    expect(added.result.structuredContent).toEqual({
      name: 'shopping-list',
      path: 'notes/shopping-list.md',
      replaced: false,
    });
    expect(await readFile(noteFile('shopping-list'), 'utf8')).toBe('# Shopping list\n\n- milk\n- bread\n');
    await s.call('notes_add', { title: '  Crème brûlée recipe ', body: 'Sugar.' });

    const listed = await s.call('notes_list', {});
    expect(textOf(listed.result)).toBe(
      'creme-brulee-recipe: Crème brûlée recipe\nshopping-list: Shopping list',
    );
    expect(listed.result.structuredContent).toEqual({
      notes: [
        { name: 'creme-brulee-recipe', title: 'Crème brûlée recipe' },
        { name: 'shopping-list', title: 'Shopping list' },
      ],
    });

    const read = await s.call('notes_read', { name: 'shopping-list' });
    expect(read.status).toBe('ok');
    expect(textOf(read.result)).toBe('# Shopping list\n\n- milk\n- bread\n');
  });

  it('lists nothing before the first note, and says so', async () => {
    const { result } = await (await session()).call('notes_list', {});
    expect(result.isError).toBeUndefined();
    expect(textOf(result)).toBe('No notes yet. Add one with notes_add.');
    expect(result.structuredContent).toEqual({ notes: [] });
  });

  it('replaces a note only when asked to', async () => {
    const s = await session();
    await s.call('notes_add', { title: 'Todo', body: 'one' });
    const again = await s.call('notes_add', { title: 'todo', body: 'two' });
    expect(again.status).toBe('tool-error');
    expect(textOf(again.result)).toBe(
      'Tool "notes_add" failed: a note named "todo" exists already; pass overwrite: true to replace it',
    );
    expect(await readFile(noteFile('todo'), 'utf8')).toBe('# Todo\n\none\n');

    const replaced = await s.call('notes_add', { title: 'todo', body: 'two', overwrite: true });
    expect(replaced.result.structuredContent).toMatchObject({ replaced: true });
    expect(await readFile(noteFile('todo'), 'utf8')).toBe('# todo\n\ntwo\n');
  });

  it('says when a note does not exist', async () => {
    const { result } = await (await session()).call('notes_read', { name: 'nothing-here' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      'Tool "notes_read" failed: there is no note named "nothing-here"; notes_list shows the names',
    );
  });

  it('refuses input its schemas reject, with their messages', async () => {
    const s = await session();
    expect(textOf((await s.call('notes_add', { title: '   ', body: 'x' })).result)).toBe(
      'Invalid input for tool "notes_add": at "title": title must not be empty',
    );
    expect(textOf((await s.call('notes_add', { title: '???', body: 'x' })).result)).toBe(
      'Invalid input for tool "notes_add": at "title": title must contain at least one ASCII letter or digit (the file name is made from it)',
    );
    expect(textOf((await s.call('notes_add', { title: 'a\nb' })).result)).toBe(
      'Invalid input for tool "notes_add": at "title": title must be a single line; at "body": body must be a string',
    );
    expect(textOf((await s.call('notes_read', {})).result)).toBe(
      'Invalid input for tool "notes_read": at "name": name must be a string',
    );
  });

  describe('without the fs grant', () => {
    it('fails every tool with the permission and the config key to set', async () => {
      const s = await session({});
      const add = await s.call('notes_add', { title: 'Secret plan', body: 'x' });
      expect(add.status).toBe('tool-error');
      expect(textOf(add.result)).toContain(
        'declares permissions.fs.read ["notes"] but config does not grant it',
      );
      expect(textOf(add.result)).toContain('add "notes" to plugins.notes.grants.fs.read');

      const list = await s.call('notes_list', {});
      expect(textOf(list.result)).toBe(
        'Tool "notes_list" failed: ctx.fs.readdir of "notes" is not allowed: plugin "notes" declares ' +
          'permissions.fs.read ["notes"] but config does not grant it; add "notes" to plugins.notes.grants.fs.read',
      );
      const read = await s.call('notes_read', { name: 'secret-plan' });
      expect(textOf(read.result)).toContain('add "notes" to plugins.notes.grants.fs.read');
      await expect(stat(path.join(project.root, 'notes'))).rejects.toThrow(/ENOENT/);
    });

    it('reads but does not write with a read-only grant', async () => {
      await mkdir(path.join(project.root, 'notes'));
      await writeFile(noteFile('old'), '# Old\n\nkept\n');
      const s = await session({ grants: { fs: { read: ['notes'] } } });
      expect(textOf((await s.call('notes_read', { name: 'old' })).result)).toBe('# Old\n\nkept\n');
      const add = await s.call('notes_add', { title: 'New', body: 'x' });
      expect(textOf(add.result)).toBe(
        'Tool "notes_add" failed: ctx.fs.writeFile of "notes/new.md" is not allowed: plugin "notes" declares ' +
          'permissions.fs.write ["notes"] but config does not grant it; add "notes" to plugins.notes.grants.fs.write',
      );
      await expect(stat(noteFile('new'))).rejects.toThrow(/ENOENT/);
    });
  });

  describe('escape attempts', () => {
    it('refuses names that are not plain note names', async () => {
      const s = await session();
      for (const name of ['../secret', '/etc/passwd', 'notes/x', 'x.md', 'Upper', '']) {
        const { result } = await s.call('notes_read', { name });
        expect(result.isError, name).toBe(true);
        expect(textOf(result)).toBe(
          'Invalid input for tool "notes_read": at "name": name must be a note name as notes_list shows it: ' +
            'lower-case letters, digits and single dashes',
        );
      }
    });

    it('refuses symbolic links out of notes/, inside or outside the project', async () => {
      const outside = await mkdtemp(path.join(tmpdir(), 'toolhost-notes-outside-'));
      try {
        await writeFile(path.join(project.root, 'secret.txt'), 'project secret');
        await writeFile(path.join(outside, 'secret.txt'), 'host secret');
        await mkdir(path.join(project.root, 'notes'));
        await symlink('../secret.txt', noteFile('inproject'));
        await symlink(path.join(outside, 'secret.txt'), noteFile('outside'));
        await writeFile(noteFile('real'), '# Real\n');
        const s = await session();

        const inProject = await s.call('notes_read', { name: 'inproject' });
        expect(inProject.result.isError).toBe(true);
        expect(textOf(inProject.result)).toContain(
          'ctx.fs.readFile of "notes/inproject.md" is not allowed: it leads through a symbolic link outside ' +
            'the granted permissions.fs.read roots ["notes"]',
        );
        const escaped = await s.call('notes_read', { name: 'outside' });
        expect(escaped.result.isError).toBe(true);
        expect(textOf(escaped.result)).toContain(
          'ctx.fs.readFile of "notes/outside.md" is not allowed: it leads outside the project root',
        );
        const overwrite = await s.call('notes_add', { title: 'Inproject', body: 'pwned', overwrite: true });
        expect(overwrite.result.isError).toBe(true);
        expect(await readFile(path.join(project.root, 'secret.txt'), 'utf8')).toBe('project secret');

        // The listing still shows the readable note; the links keep their names as titles.
        const listed = await s.call('notes_list', {});
        expect(listed.result.structuredContent).toEqual({
          notes: [
            { name: 'inproject', title: 'inproject' },
            { name: 'outside', title: 'outside' },
            { name: 'real', title: 'Real' },
          ],
        });
        for (const { result } of [inProject, escaped, overwrite, listed]) {
          expect(textOf(result)).not.toContain('secret"');
          expect(textOf(result)).not.toContain(outside);
        }
      } finally {
        await rm(outside, { recursive: true, force: true });
      }
    });
  });
});
