import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseConfig } from '@toolhost/host';
import { describe, expect, it } from 'vitest';
import { pluginSource } from '../packages/host/src/cli/scaffold.js';
import { readmeModules, typeErrors } from './readme-typescript.js';

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

  it('ships a repository config that validates (npm start uses it)', async () => {
    const config = JSON.parse(await readFile(path.join(root, 'toolhost.config.json'), 'utf8'));
    const outcome = parseConfig(config, 'toolhost.config.json');
    expect(outcome.ok ? [] : outcome.issues).toEqual([]);
  });
});

describe("the README's TypeScript examples", () => {
  it('compile as shown, each block a module of its own (imports included)', { timeout: 60_000 }, async () => {
    const readme = await readFile(path.join(root, 'README.md'), 'utf8');
    const modules = readmeModules(readme, root);
    // The greeter and weather plugins, createHost with plugin settings.
    expect(modules.map((m) => m.source).join('\n')).toContain("id: 'weather'");
    expect(typeErrors(modules, root)).toEqual([]);
  });

  it('shows the greeter exactly as `toolhost new greeter` writes it', async () => {
    const readme = await readFile(path.join(root, 'README.md'), 'utf8');
    const section = readme.split('\n## Writing a plugin')[1] ?? '';
    const first = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
    expect(first).toBe(pluginSource('greeter'));
  });
});
