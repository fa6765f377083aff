/**
 * The files `toolhost new NAME` writes: a plugin with one typed tool, and its test, which loads
 * the plugin through the real host from a throwaway copy (as the example plugins' tests do).
 * Both pass as written; the test needs only `@toolhost/host` and `vitest`.
 */

/** The plugin id rule of `definePlugin`: the folder name must match it. */
export const PLUGIN_ID = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** Tool names are at most 64 characters; the example tool is `<id>_hello`. */
const TOOL_SUFFIX = '_hello';

export function exampleToolName(id: string): string {
  return `${id.replaceAll('-', '_')}${TOOL_SUFFIX}`;
}

export function pluginSource(id: string): string {
  const tool = exampleToolName(id);
  return `import { definePlugin, defineTool } from '@toolhost/plugin-sdk';
import * as z from 'zod';

/**
 * The ${id} plugin. It runs in a sandbox: import only \`@toolhost/plugin-sdk\`, \`zod\` and pure
 * packages; reach the network, files and environment through \`ctx\` once declared in
 * \`permissions\` and granted in toolhost.config.json (\`plugins.${id}.grants\`).
 */

const hello = defineTool({
  name: '${tool}',
  title: 'Say hello',
  description: 'Greets someone by name, once or a few times. Replace it with a tool of your own.',
  input: z.object({
    name: z.string().min(1, { error: 'name must not be empty' }).describe('Who to greet'),
    times: z.number().int().min(1).max(5).default(1).describe('How many greetings, 1 to 5'),
  }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  // \`name\` and \`times\` are typed from the schema; \`ctx\` carries the log, progress and capabilities.
  execute: ({ name, times }, ctx) => {
    ctx.log.info(\`greeting \${name} \${times} time(s)\`);
    const lines: string[] = [];
    for (let i = 1; i <= times; i += 1) {
      lines.push(\`Hello, \${name}!\`);
      ctx.progress(i, times);
    }
    return lines.join('\\n');
  },
});

export default definePlugin({
  id: '${id}',
  tools: [hello],
});
`;
}

export function testSource(id: string): string {
  const tool = exampleToolName(id);
  return `import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHost, resultText, type ToolHost } from '@toolhost/host';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The plugin is loaded through the real host (bundled, described and run in its sandbox) from a
// throwaway project that holds a copy of this folder without its tests.
const pluginDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
let root: string;
let host: ToolHost;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'toolhost-${id}-'));
  await cp(pluginDir, path.join(root, 'plugins', '${id}'), {
    recursive: true,
    filter: (file) => path.relative(pluginDir, file).split(path.sep)[0] !== 'test',
  });
  host = await createHost({ root, builtins: false, cache: false });
});

afterAll(async () => {
  await host?.close();
  await rm(root, { recursive: true, force: true });
});

const call = (input: unknown) => host.session().call('${tool}', input);

describe('${id} plugin', () => {
  it('loads with its tool visible', () => {
    expect(host.plugins).toEqual([expect.objectContaining({ id: '${id}', status: 'loaded' })]);
    expect(host.plan().visible.map((entry) => entry.descriptor.name)).toEqual(['${tool}']);
  });

  it('greets', async () => {
    const { result, status } = await call({ name: 'Ada', times: 2 });
    expect(status).toBe('ok');
    expect(resultText(result)).toBe('Hello, Ada!\\nHello, Ada!');
  });

  it('refuses invalid input with a message the model can act on', async () => {
    const { result, status } = await call({ name: '' });
    expect(status).toBe('invalid-input');
    expect(result.isError).toBe(true);
    expect(resultText(result)).toContain('name must not be empty');
  });
});
`;
}

/**
 * The plugin's tsconfig.json: the language and exactly the globals of the sandbox
 * (`@toolhost/plugin-sdk/env`), no Node types, so the editor flags `process` or `require` while
 * typing. The tests beside it run on Node and are left to the project's own tsconfig.
 */
export function pluginTsconfig(): string {
  const config = {
    compilerOptions: {
      target: 'ES2022',
      lib: ['ES2022'],
      types: ['@toolhost/plugin-sdk/env'],
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      noEmit: true,
      skipLibCheck: true,
    },
    include: ['**/*.ts'],
    exclude: ['test'],
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}
