import { readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHost, parseConfig } from '@toolhost/host';
import { describe, expect, it } from 'vitest';
import { HELP } from '../packages/host/src/cli/help.js';
import { pluginSource } from '../packages/host/src/cli/scaffold.js';
import { project } from './cli/cli.js';
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

  it("plugins/README.md's plugins block is valid toolhost.config.json once wrapped in braces", async () => {
    const readme = await readFile(path.join(root, 'plugins', 'README.md'), 'utf8');
    const blocks = [...readme.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
    expect(blocks.length).toBeGreaterThan(0);
    for (const block of blocks) {
      const outcome = parseConfig(JSON.parse(`{${block}}`), 'plugins/README.md');
      expect(outcome.ok ? [] : outcome.issues, block).toEqual([]);
    }
  });

  it('ships a repository config that validates (npm start uses it)', async () => {
    const config = JSON.parse(await readFile(path.join(root, 'toolhost.config.json'), 'utf8'));
    const outcome = parseConfig(config, 'toolhost.config.json');
    expect(outcome.ok ? [] : outcome.issues).toEqual([]);
  });
});

describe("the README's command table", () => {
  it("has a row per command with every flag of the command's --help usage", async () => {
    const readme = await readFile(path.join(root, 'README.md'), 'utf8');
    const rows = [...readme.matchAll(/^\| `toolhost ([a-z-]+)([^`]*)`/gm)].map(
      (m) => [m[1], m[2] ?? ''] as const,
    );
    expect(rows.map(([name]) => name)).toEqual(Object.keys(HELP));
    for (const [name, flags] of rows) {
      const usage = HELP[name as keyof typeof HELP].usage;
      const wanted = [...usage.matchAll(/--[a-z-]+/g)]
        .map((m) => m[0])
        .filter((f) => f !== '--root' && f !== '--config');
      expect(
        [...flags.matchAll(/--[a-z-]+/g)].map((m) => m[0]),
        name,
      ).toEqual(wanted);
    }
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

  it('has a change listener that says which tool went and why when a plugin is disabled', async () => {
    const readme = await readFile(path.join(root, 'README.md'), 'utf8');
    // The README's own listener (plain JavaScript as written), run against a real host.
    const listener = /^host\.on\('change', \(c\) => (?:\{\n[\s\S]*?^\}\);|.*\);)$/m.exec(readme)?.[0];
    expect(listener).toBeDefined();
    const { root: projectRoot, dispose } = await project(['healthy'], { builtins: false });
    const host = await createHost({ root: projectRoot });
    try {
      const printed: string[] = [];
      const console = { error: (line: string) => printed.push(line) };
      new Function('host', 'console', listener ?? '')(host, console);
      const changed = new Promise<void>((resolve) => host.on('change', () => resolve()));
      await writeFile(
        path.join(projectRoot, 'toolhost.config.json'),
        JSON.stringify({ builtins: false, plugins: { healthy: { enabled: false } } }),
      );
      await host.reload();
      await changed;
      expect(printed).toEqual(['tools v2 (reload): healthy_echo hidden (plugin-disabled)']);
    } finally {
      await host.close();
      await dispose();
    }
  });
});
