import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseConfig } from '@toolhost/host';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

describe('the README', () => {
  it('shows a config reference that the config schema accepts', async () => {
    const readme = await readFile(path.join(root, 'README.md'), 'utf8');
    const section = readme.split('\n## Config: `toolhost.config.json`')[1]?.split('\n## ')[0] ?? '';
    const blocks = [...section.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
    expect(blocks.length).toBeGreaterThan(0);
    for (const block of blocks) {
      const outcome = parseConfig(JSON.parse(block), 'README.md');
      expect(outcome.ok ? [] : outcome.issues).toEqual([]);
    }
  });

  it('shows only valid toolhost.config.json in every config snippet (the policy and control-file ones too)', async () => {
    const readme = await readFile(path.join(root, 'README.md'), 'utf8');
    // Every ```json block is a toolhost config, except an MCP client's own config in the section on clients.
    const sections = readme.split('\n## ').filter((section) => !section.startsWith('Using it from'));
    const blocks = sections.flatMap((section) =>
      [...section.matchAll(/^( *)```json\n([\s\S]*?)^\1```/gm)].map((m) => (m[2] ?? '').trim()),
    );
    expect(blocks.some((block) => block.includes('"tools": { "allow"'))).toBe(true);
    for (const block of blocks) {
      const outcome = parseConfig(JSON.parse(block), 'README.md');
      expect(outcome.ok ? [] : outcome.issues, block).toEqual([]);
    }
  });

  it('ships a repository config that validates (npm start uses it)', async () => {
    const config = JSON.parse(await readFile(path.join(root, 'toolhost.config.json'), 'utf8'));
    const outcome = parseConfig(config, 'toolhost.config.json');
    expect(outcome.ok ? [] : outcome.issues).toEqual([]);
  });
});
