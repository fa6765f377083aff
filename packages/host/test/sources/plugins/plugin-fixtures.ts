/** What the plugin-set tests build on: a plugin entry with one tool, and a project of such plugins. */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createSandbox } from '../../../src/sandbox/create.js';

/** A plugin entry with one tool `<id>_tool`; `before` is module code that runs first (a spin, say). */
export function pluginSource(id: string, before = ''): string {
  return `import { definePlugin, defineTool } from '@toolhost/plugin-sdk';
import * as z from 'zod';
${before}
export default definePlugin({
  id: ${JSON.stringify(id)},
  tools: [defineTool({ name: '${id}_tool', description: 'test tool', input: z.object({}), execute: () => '${id}' })],
});
`;
}

/**
 * A project folder holding `plugins` (id → entry source) under `plugins/`, and an inline sandbox;
 * both are removed by `cleanups` (the test's list, run after it).
 */
export async function pluginProject(
  plugins: Record<string, string>,
  cleanups: (() => Promise<unknown> | unknown)[],
) {
  const root = await mkdtemp(path.join(tmpdir(), 'toolhost-plugins-'));
  cleanups.push(() => rm(root, { recursive: true, force: true }));
  for (const [id, source] of Object.entries(plugins)) {
    await mkdir(path.join(root, 'plugins', id), { recursive: true });
    await writeFile(path.join(root, 'plugins', id, 'index.ts'), source);
  }
  const sandbox = createSandbox('inline');
  cleanups.push(() => sandbox.close());
  return { root, dir: path.join(root, 'plugins'), sandbox };
}
