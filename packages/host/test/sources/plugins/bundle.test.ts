import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { preludeKindOf } from '../../../src/sandbox/isolate-script.js';
import {
  bundlePlugin,
  createIncrementalBundler,
  type IncrementalBundler,
} from '../../../src/sources/plugins/bundle.js';

const HEADER = `import { definePlugin, defineTool } from '@toolhost/plugin-sdk';\nimport * as z from 'zod';\n`;

/** A plugin source with one tool returning `expression`, after `imports`. */
function source(imports: string, expression: string): string {
  return `${HEADER}${imports}
export default definePlugin({
  id: 'p',
  tools: [defineTool({ name: 'p_tool', description: 'd', input: z.object({}), execute: () => String(${expression}) })],
});
`;
}

describe('plugin bundles', () => {
  const roots: string[] = [];
  const bundlers: IncrementalBundler[] = [];

  afterEach(async () => {
    await Promise.all(bundlers.splice(0).map((b) => b.dispose()));
    await Promise.all(roots.splice(0).map((root) => rm(root, { recursive: true, force: true })));
  });

  /** A project with a secret at its root and a plugin folder `plugins/p/` holding `files`. */
  async function plugin(files: Record<string, string>) {
    const root = await realpath(await mkdtemp(path.join(tmpdir(), 'toolhost-bundle-')));
    roots.push(root);
    await writeFile(path.join(root, 'secret.json'), '{"token":"SECRET-b1"}');
    const dir = path.join(root, 'plugins', 'p');
    for (const [name, text] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
      await writeFile(path.join(dir, name), text);
    }
    return { root, dir, entry: path.join(dir, 'index.ts') };
  }

  const paths = {
    'one-shot': (entry: string) => bundlePlugin(entry),
    incremental: async (entry: string) => {
      const bundler = await createIncrementalBundler(entry);
      bundlers.push(bundler);
      return bundler.rebuild();
    },
  };

  it.each(Object.keys(paths) as (keyof typeof paths)[])(
    'the %s build refuses an import outside the plugin, naming it, the file and line, and why',
    async (kind) => {
      const { entry } = await plugin({
        'index.ts': source(`import secret from '../../secret.json';`, 'secret'),
      });
      const outcome = await paths[kind](entry);
      expect(outcome.ok).toBe(false);
      if (outcome.ok) return;
      expect(outcome.error).toBe(
        `index.ts:3:19: import "../../secret.json" is refused: it is outside the plugin folder (a plugin build reads only the plugin's own files, @toolhost/plugin-sdk and zod)`,
      );
    },
  );

  it('keeps refusing across rebuilds in watch mode: an edit that reaches out fails, fixing it builds again', async () => {
    const { entry } = await plugin({ 'index.ts': source('', "'inside'"), 'local.json': '{"v":"local"}' });
    const bundler = await createIncrementalBundler(entry);
    bundlers.push(bundler);
    expect((await bundler.rebuild()).ok).toBe(true);

    await writeFile(entry, source(`import secret from '../../secret.json';`, 'secret.token'));
    const refused = await bundler.rebuild();
    expect(refused.ok).toBe(false);
    if (!refused.ok)
      expect(refused.error).toMatch(/import "\.\.\/\.\.\/secret\.json" is refused: it is outside/);

    await writeFile(entry, source(`import local from './local.json';`, 'local.v'));
    const fixed = await bundler.rebuild();
    expect(fixed.ok, fixed.ok ? '' : fixed.error).toBe(true);
    if (fixed.ok) {
      expect(fixed.code).toContain('local');
      expect(fixed.code).not.toContain('SECRET-b1');
    }
  });

  it('reads the whole plugin folder when the entry is in a subfolder and the folder is given', async () => {
    const { dir } = await plugin({
      'src/index.ts': source(`import { shared } from '../lib/shared.ts';`, 'shared'),
      'lib/shared.ts': `export const shared = 'shared';\n`,
    });
    const entry = path.join(dir, 'src', 'index.ts');
    const whole = await bundlePlugin(entry, { root: dir });
    expect(whole.ok, whole.ok ? '' : whole.error).toBe(true);
    const narrow = await bundlePlugin(entry);
    expect(narrow.ok).toBe(false);
    if (!narrow.ok) expect(narrow.error).toMatch(/import "\.\.\/lib\/shared\.ts" is refused: it is outside/);
  });

  it('lists the files it was built from, all inside the plugin, the SDK and zod', async () => {
    const { dir, entry } = await plugin({ 'index.ts': source('', "'x'") });
    const outcome = await bundlePlugin(entry);
    expect(outcome.ok).toBe(true);
    expect(outcome.inputs).toContain(entry);
    const outsideKnown = outcome.inputs.filter(
      (file) => !file.startsWith(dir) && !/[/\\](plugin-sdk|zod)[/\\]/.test(file),
    );
    expect(outsideKnown).toEqual([]);
  });

  it("holds only the plugin's own code: the SDK and zod come from the isolate's prelude", async () => {
    const { dir, entry } = await plugin({ 'index.ts': source('', "'x'") });
    const outcome = await bundlePlugin(entry);
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.inputs.every((file) => file.startsWith(dir))).toBe(true);
    // zod's classes and the SDK's definePlugin are not defined here, only bound from the prelude.
    expect(outcome.code).not.toMatch(/class \w*Zod|function definePlugin/);
    expect(outcome.code).toContain('pick("@toolhost/plugin-sdk", "definePlugin")');
    expect(outcome.code.length).toBeLessThan(4_000);
  });

  it("asks for the prelude with zod's mini API only when it uses that API", async () => {
    const classic = await plugin({ 'index.ts': source('', "z.string().parse('x')") });
    const mini = await plugin({
      'index.ts': source(`import * as zm from 'zod/v4/mini';`, "zm.string().parse('x')"),
    });
    const [plain, withMini] = await Promise.all([bundlePlugin(classic.entry), bundlePlugin(mini.entry)]);
    expect(plain.ok && preludeKindOf(plain.code)).toBe('base');
    expect(withMini.ok && preludeKindOf(withMini.code)).toBe('full');
  });

  describe('limits', () => {
    it('stops a build that reads more files than allowed, and says which limit', async () => {
      // The SDK and zod come from the isolate's prelude: only the plugin's own files count.
      const parts = Array.from({ length: 25 }, (_, i) => `part${i}`);
      const { entry } = await plugin({
        'index.ts': source(
          parts.map((name) => `import { ${name} } from './${name}.ts';`).join('\n'),
          `[${parts.join(', ')}].join('')`,
        ),
        ...Object.fromEntries(parts.map((name) => [`${name}.ts`, `export const ${name} = '${name}';`])),
      });
      const outcome = await bundlePlugin(entry, { limits: { maxFiles: 20 } });
      expect(outcome.ok).toBe(false);
      if (!outcome.ok)
        expect(outcome.error).toBe(
          'the build reads more than 20 files (a plugin build may read 20 files and 32 MB, in 30 s)',
        );
    });

    it('stops a build that reads more bytes than allowed', async () => {
      const { entry } = await plugin({
        'index.ts': source(`import big from './big.json';`, 'big.length'),
        'big.json': JSON.stringify('x'.repeat(300_000)),
      });
      const outcome = await bundlePlugin(entry, { limits: { maxBytes: 200 * 1024 } });
      expect(outcome.ok).toBe(false);
      if (!outcome.ok)
        expect(outcome.error).toBe(
          'the build reads more than 0.2 MB (a plugin build may read 2000 files and 0.2 MB, in 30 s)',
        );
    });

    it('counts refused files too, so a glob over a large folder stops at the file limit', async () => {
      const files: Record<string, string> = {
        'index.ts': source(
          // biome-ignore lint/suspicious/noTemplateCurlyInString: plugin source, bundled by esbuild
          'const name = String((globalThis as any).name);\nconst all = import(`./data/${name}`);',
          'all',
        ),
      };
      for (let i = 0; i < 60; i++) files[`data/note-${i}.txt`] = 'not code';
      const { entry } = await plugin(files);
      const outcome = await bundlePlugin(entry, { limits: { maxFiles: 40 } });
      expect(outcome.ok).toBe(false);
      if (!outcome.ok) expect(outcome.error).toMatch(/^the build reads more than 40 files \(/);
    });
  });
});
