import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { project, REPO, toolhostInProcess } from './cli.js';

const notes = { from: path.join(REPO, 'plugins/notes') };

/** A config written by hand: four-space indent, `$schema` first, a grant already there. */
const HAND_WRITTEN = `{
    "$schema": "./node_modules/@toolhost/host/toolhost.config.schema.json",
    "builtins": false,
    "plugins": {
        "notes": {
            "grants": {
                "fs": {
                    "read": [
                        "notes"
                    ]
                }
            }
        }
    }
}
`;

describe('toolhost grant', () => {
  it('shows the diff and, with --yes, writes the grants doctor computes, keeping the file as written', async () => {
    const { root, dispose } = await project([notes]);
    const file = path.join(root, 'toolhost.config.json');
    await writeFile(file, HAND_WRITTEN);
    try {
      // Not a terminal and no --yes: the diff, then a refusal that says what to pass.
      const asked = await toolhostInProcess(['grant', 'notes', '--root', root], { cwd: root });
      expect(asked.code).toBe(1);
      expect(asked.stdout).toContain(
        [
          `  ${' '.repeat(20)}"read": [`,
          `  ${' '.repeat(24)}"notes"`,
          `+ ${' '.repeat(20)}],`,
          `+ ${' '.repeat(20)}"write": [`,
          `+ ${' '.repeat(24)}"notes"`,
          `  ${' '.repeat(20)}]`,
          `  ${' '.repeat(16)}}`,
        ].join('\n'),
      );
      expect(asked.stderr).toContain('not a terminal, so not asking: pass --yes to write these grants');
      expect(await readFile(file, 'utf8')).toBe(HAND_WRITTEN);

      const written = await toolhostInProcess(['grant', 'notes', '--yes', '--root', root], { cwd: root });
      expect(written.code).toBe(0);
      expect(written.stdout).toContain(
        'Wrote toolhost.config.json: plugin notes now has the grants it asks for.',
      );
      const after = await readFile(file, 'utf8');
      expect(after).toBe(
        HAND_WRITTEN.replace(
          '                        "notes"\n                    ]\n',
          '                        "notes"\n                    ],\n                    "write": [\n                        "notes"\n                    ]\n',
        ),
      );

      const doctor = await toolhostInProcess(['doctor', '--root', root], { cwd: root });
      expect(doctor.stdout).not.toContain('which config does not grant');
      const again = await toolhostInProcess(['grant', 'notes', '--root', root], { cwd: root });
      expect(again).toMatchObject({ code: 0, stdout: expect.stringContaining('nothing to change') });
    } finally {
      await dispose();
    }
  });

  it('changes only the granted key: one-line lists and the rest of the file stay as written', async () => {
    const { root, dispose } = await project([notes]);
    const file = path.join(root, 'toolhost.config.json');
    const oneLine = `{
  "builtins": false,
  "tools": { "deny": ["exec",   "write"] },
  "plugins": {
    "notes": { "grants": { "fs": { "read": ["notes"] } } }
  }
}
`;
    await writeFile(file, oneLine);
    try {
      const written = await toolhostInProcess(['grant', 'notes', '--yes', '--root', root], { cwd: root });
      expect(written.code).toBe(0);
      expect(await readFile(file, 'utf8')).toBe(
        oneLine.replace('"read": ["notes"] }', '"read": ["notes"], "write": [ "notes" ] }'),
      );
    } finally {
      await dispose();
    }
  });

  it("list's fix line is a grant command that runs as printed from the folder list ran in", async () => {
    const { root, dispose } = await project([notes], { builtins: false });
    const cwd = path.dirname(root); // another folder, with no toolhost of its own
    try {
      const list = await toolhostInProcess(['list', '--root', root], { cwd });
      const printed = /\(or run (.+ grant notes.*)\)$/m.exec(list.stdout)?.[1];
      expect(printed, list.stdout).toBeDefined();
      const ran = await new Promise<{ code: number }>((resolve) => {
        execFile('/bin/sh', ['-c', `${printed} --yes`], { cwd }, (error) =>
          resolve({ code: error === null ? 0 : Number(error.code) }),
        );
      });
      expect(ran.code).toBe(0);
      expect(JSON.parse(await readFile(path.join(root, 'toolhost.config.json'), 'utf8'))).toMatchObject({
        plugins: { notes: { grants: { fs: { read: ['notes'], write: ['notes'] } } } },
      });
    } finally {
      await dispose();
    }
  });

  it('creates the config file when there is none', async () => {
    const { root, dispose } = await project([notes]);
    try {
      const run = await toolhostInProcess(['grant', 'notes', '--yes', '--root', root], { cwd: root });
      expect(run.code).toBe(0);
      expect(JSON.parse(await readFile(path.join(root, 'toolhost.config.json'), 'utf8'))).toEqual({
        plugins: { notes: { grants: { fs: { read: ['notes'], write: ['notes'] } } } },
      });
    } finally {
      await dispose();
    }
  });

  it('refuses a config that does not parse, and a plugin that does not exist', async () => {
    const { root, dispose } = await project([notes]);
    const file = path.join(root, 'toolhost.config.json');
    await writeFile(file, '{ "plugins": { ');
    try {
      const broken = await toolhostInProcess(['grant', 'notes', '--yes', '--root', root], { cwd: root });
      expect(broken.code).toBe(1);
      expect(broken.stderr).toMatch(/toolhost\.config\.json does not parse \(.*\); correct it first/);
      expect(await readFile(file, 'utf8')).toBe('{ "plugins": { ');

      await writeFile(file, '{}');
      const unknown = await toolhostInProcess(['grant', 'nots', '--root', root], { cwd: root });
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain('no plugin "nots" in plugins (plugins: notes)');
    } finally {
      await dispose();
    }
  });
});
