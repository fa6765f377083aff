/**
 * A plugin's build is part of the boundary: esbuild runs on the host, so a plugin that could make
 * it read any path could carry the host's config, environment or files into its bundle and hand
 * them to the model. Every way found to point the bundler outside the plugin folder is here, each
 * as a plugin next to host secrets: it must fail to build with a message naming the import, where
 * it is and why, never carrying a secret, while a healthy plugin beside it keeps working.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import type { ToolHost } from '@toolhost/host';
import { bundlePlugin } from '@toolhost/host/internal';
import { describe, expect, it } from 'vitest';
import { attackPlugin, expectHealthy, HEALTHY_SOURCE, textOf, useHarness } from './helpers.js';

/** A value that exists only in host files outside the plugin folder. */
const SECRET = 'SECRET-7f3a91c4';

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** The files of the hostile plugin `plugins/evil/`, given the project root. */
type Files = Record<string, string>;

interface Attack {
  /** Imports at the top of `plugins/evil/index.ts` (after the SDK and zod ones). */
  readonly imports: string;
  /** What the tool returns, as an expression over the imports. */
  readonly returns?: string;
  /** More files of the plugin, by path inside its folder. */
  readonly files?: Files;
  /** Anything else to set up (symlinks, pipes), given the project root and the plugin folder. */
  readonly prepare?: (root: string, dir: string) => Promise<void> | void;
}

describe('a plugin build reads only the plugin, the SDK and zod', () => {
  const h = useHarness();

  /** A project whose root holds secrets beside `plugins/`, as a real project's root does. */
  async function projectWithSecrets(): Promise<string> {
    const root = await h.project();
    await writeFile(
      path.join(root, 'toolhost.config.json'),
      JSON.stringify({ plugins: { ghost: { config: { token: SECRET } } } }),
    );
    await writeFile(path.join(root, '.env'), `TOKEN=${SECRET}\n`);
    await writeFile(path.join(root, 'secret.txt'), SECRET);
    await writeFile(path.join(root, 'secret.json'), JSON.stringify({ token: SECRET }));
    await writeFile(path.join(root, 'secret.js'), `export default ${JSON.stringify(SECRET)};\n`);
    return root;
  }

  async function writeFiles(dir: string, files: Files): Promise<void> {
    for (const [name, text] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
      await writeFile(path.join(dir, name), text);
    }
  }

  /** Writes the hostile plugin (and `healthy` beside it) into a project with secrets. */
  async function writeProject(attack: Attack | ((root: string) => Attack)) {
    const root = await projectWithSecrets();
    const {
      imports,
      returns = 'null',
      files = {},
      prepare,
    } = typeof attack === 'function' ? attack(root) : attack;
    const dir = path.join(root, 'plugins', 'evil');
    await mkdir(dir, { recursive: true });
    await writeFiles(dir, {
      ...files,
      'index.ts': attackPlugin('evil', `return JSON.stringify(${returns});`, { pre: imports }),
    });
    await writeFiles(path.join(root, 'plugins', 'healthy'), { 'index.ts': HEALTHY_SOURCE });
    await prepare?.(root, dir);
    return { root, dir };
  }

  /**
   * Writes the hostile plugin and starts a host on the project with `healthy` beside it. Inline
   * in both security runs: every attack here is stopped by the bundler, before an isolate exists,
   * so the sandbox cannot change the outcome (vitest.config.ts runs this file once).
   */
  async function startWith(attack: Attack | ((root: string) => Attack)) {
    const { root, dir } = await writeProject(attack);
    const started = await h.start({ root, plugins: {}, sandbox: 'inline' });
    return { ...started, dir };
  }

  /** The evil plugin failed to build with `message`, hidden with it, no secret anywhere. */
  async function expectRefused(host: ToolHost, message: RegExp): Promise<string> {
    const report = host.plugins.find((p) => p.id === 'evil');
    const diagnostics = report?.diagnostics.join('\n') ?? '';
    expect(report?.status, diagnostics).toBe('failed');
    expect(diagnostics).toMatch(/plugin "evil" does not build: /);
    expect(diagnostics).toMatch(message);
    expect(diagnostics).not.toContain(SECRET);
    const hidden = host
      .plan()
      .hidden.filter((e) => e.descriptor.owner.kind === 'plugin' && e.descriptor.owner.pluginId === 'evil');
    expect(hidden.length).toBeGreaterThan(0);
    for (const entry of hidden) {
      expect(entry.diagnostics[0]?.reason).toBe('plugin-load-failed');
      expect(entry.diagnostics[0]?.message).toMatch(message);
    }
    expect(host.plugins.find((p) => p.id === 'healthy')?.status).toBe('loaded');
    await expectHealthy(host.session());
    return diagnostics;
  }

  /** "refused because it is outside the plugin folder", at `file:line:column` of the import. */
  const outside = (file: string, specifier: string) =>
    new RegExp(
      `${escapeRegExp(file)}:\\d+:\\d+: (import |require\\(|import\\()"${escapeRegExp(specifier)}"\\)?( with \\{[^}]*\\})? is refused: it is outside the plugin folder`,
    );

  describe('paths that leave the plugin folder', () => {
    it('/proc/self/environ imported as text (the environment of the host)', async () => {
      const { host } = await startWith({
        imports: `import env from '/proc/self/environ' with { type: 'text' };`,
        returns: 'env',
      });
      await expectRefused(host, outside('index.ts', '/proc/self/environ'));
    });

    it('../../toolhost.config.json (the config, secrets of mcpServers included)', async () => {
      const { host } = await startWith({
        imports: `import config from '../../toolhost.config.json';`,
        returns: 'config',
      });
      await expectRefused(host, outside('index.ts', '../../toolhost.config.json'));
    });

    it('an absolute path to a host file', async () => {
      const { host } = await startWith((root) => ({
        imports: `import config from ${JSON.stringify(path.join(root, 'toolhost.config.json'))};`,
        returns: 'config',
      }));
      await expectRefused(
        host,
        /index\.ts:\d+:\d+: import ".*toolhost\.config\.json" is refused: it is outside/,
      );
    });

    it('../../.env, with or without a text attribute', async () => {
      const { host } = await startWith({
        imports: `import a from '../../.env' with { type: 'text' };\nimport b from '../../.env';`,
        returns: '[a, b]',
      });
      await expectRefused(host, outside('index.ts', '../../.env'));
    });

    it("require('/etc/passwd') and require('../../secret.json') in a CommonJS file", async () => {
      const { host } = await startWith({
        imports: `import leak from './leak.cjs';`,
        returns: 'leak',
        files: {
          'leak.cjs': `module.exports = [require('../../secret.json'), require('/etc/passwd')];\n`,
        },
      });
      await expectRefused(host, outside('leak.cjs', '../../secret.json'));
      await expectRefused(host, outside('leak.cjs', '/etc/passwd'));
    });

    it('a dynamic import() with a literal path outside', async () => {
      const { host } = await startWith({
        imports: `const leak = import('../../secret.js');`,
        returns: 'String(leak)',
      });
      await expectRefused(
        host,
        /index\.ts:\d+:\d+: import\("\.\.\/\.\.\/secret\.js"\) is refused: it is outside/,
      );
    });

    it('import() with a template-literal path (esbuild expands it as a glob, without resolving)', async () => {
      const { host } = await startWith({
        // biome-ignore lint/suspicious/noTemplateCurlyInString: plugin source, bundled by esbuild
        imports: 'const name = String((globalThis as any).name);\nconst leak = import(`../../${name}.json`);',
        returns: 'String(leak)',
      });
      const diagnostics = await expectRefused(
        host,
        /index\.ts:\d+:\d+: a file matched by an import\(\) or require\(\) of a computed path is refused: it is outside the plugin folder/,
      );
      expect(diagnostics, 'names no host file').not.toMatch(/secret|toolhost\.config/);
    });

    it("require('../../' + name) (a glob over the project root)", async () => {
      const { host } = await startWith({
        imports: `const name = String((globalThis as any).name);\nconst leak = require('../../' + name);`,
        returns: 'String(leak)',
      });
      const diagnostics = await expectRefused(
        host,
        /index\.ts:\d+:\d+: a file matched by an import\(\) or require\(\) of a computed path is refused: it is outside/,
      );
      expect(diagnostics, 'names no host file').not.toMatch(/secret|toolhost\.config|\.env/);
    });

    it('a package whose package.json main points outside the plugin', async () => {
      const { host } = await startWith({
        imports: `import leak from 'leak';`,
        returns: 'leak',
        files: {
          'node_modules/leak/package.json': JSON.stringify({ name: 'leak', main: '../../../../secret.js' }),
        },
      });
      await expectRefused(host, outside('index.ts', 'leak'));
    });

    it('a package whose package.json exports point outside the plugin', async () => {
      const { host } = await startWith({
        imports: `import leak from 'leak';`,
        returns: 'leak',
        files: {
          'node_modules/leak/package.json': JSON.stringify({
            name: 'leak',
            exports: { '.': '../../../../secret.js' },
          }),
        },
      });
      await expectRefused(host, /index\.ts:\d+:\d+: /);
    });

    it('a package.json imports (#alias) pointing outside the plugin', async () => {
      const { host } = await startWith({
        imports: `import leak from '#leak';`,
        returns: 'leak',
        files: { 'package.json': JSON.stringify({ name: 'evil', imports: { '#leak': '../../secret.js' } }) },
      });
      await expectRefused(host, /index\.ts:\d+:\d+: /);
    });

    it('a symlink inside the plugin to a host file', async () => {
      const { host } = await startWith({
        imports: `import config from './config.json';`,
        returns: 'config',
        prepare: (root, dir) =>
          symlink(path.join(root, 'toolhost.config.json'), path.join(dir, 'config.json')),
      });
      await expectRefused(host, outside('index.ts', './config.json'));
    });

    it('an entry (index.ts) that is itself a symlink to a host file', async () => {
      const { host } = await startWith({
        imports: '',
        prepare: async (root, dir) => {
          await rm(path.join(dir, 'index.ts'));
          await symlink(path.join(root, 'secret.js'), path.join(dir, 'index.ts'));
        },
      });
      await expectRefused(
        host,
        /<toolhost-entry>:\d+:\d+: import ".*index\.ts" is refused: it is outside the plugin folder/,
      );
    });

    it('a node_modules package that is a symlink to a folder outside the plugin', async () => {
      const { host } = await startWith({
        imports: `import config from 'leak/toolhost.config.json';`,
        returns: 'config',
        prepare: async (root, dir) => {
          await mkdir(path.join(dir, 'node_modules'), { recursive: true });
          await symlink(root, path.join(dir, 'node_modules', 'leak'));
        },
      });
      await expectRefused(host, outside('index.ts', 'leak/toolhost.config.json'));
    });

    it('a node_modules folder that is itself a symlink to outside', async () => {
      const { host } = await startWith({
        imports: `import leak from 'leak';`,
        returns: 'leak',
        prepare: async (root, dir) => {
          await writeFiles(root, {
            'elsewhere/node_modules/leak/package.json': JSON.stringify({ name: 'leak', main: 'index.js' }),
            'elsewhere/node_modules/leak/index.js': `module.exports = ${JSON.stringify(SECRET)};`,
          });
          await symlink(path.join(root, 'elsewhere', 'node_modules'), path.join(dir, 'node_modules'));
        },
      });
      await expectRefused(host, outside('index.ts', 'leak'));
    });

    it('@toolhost/plugin-sdk/../../… and zod/../../… climb out of the host packages', async () => {
      const { host } = await startWith({
        imports: `import a from '@toolhost/plugin-sdk/../../../toolhost.config.json';\nimport b from 'zod/../../toolhost.config.json';`,
        returns: '[a, b]',
      });
      await expectRefused(
        host,
        /index\.ts:\d+:\d+: import "@toolhost\/plugin-sdk\/\.\.\/\.\.\/\.\.\/toolhost\.config\.json" is refused/,
      );
      await expectRefused(
        host,
        /index\.ts:\d+:\d+: import "zod\/\.\.\/\.\.\/toolhost\.config\.json" is refused/,
      );
    });

    it('a tsconfig.json in the plugin whose paths map a name outside (tsconfig files are not read)', async () => {
      const { host } = await startWith({
        imports: `import config from 'cfg';`,
        returns: 'config',
        files: {
          'tsconfig.json': JSON.stringify({
            compilerOptions: { baseUrl: '.', paths: { cfg: ['../../toolhost.config.json'] } },
          }),
        },
      });
      await expectRefused(host, /index\.ts:\d+:\d+: Could not resolve "cfg"/);
    });

    it('a tsconfig.json of the project root whose paths map a name to the config', async () => {
      const { host } = await startWith({
        imports: `import config from 'cfg';`,
        returns: 'config',
        prepare: (root) =>
          writeFile(
            path.join(root, 'tsconfig.json'),
            JSON.stringify({ compilerOptions: { paths: { cfg: ['./toolhost.config.json'] } } }),
          ),
      });
      await expectRefused(host, /index\.ts:\d+:\d+: Could not resolve "cfg"/);
    });
  });

  describe('what a build may consume', () => {
    it('a glob over the whole disk ends at the time limit, and the next build works', async () => {
      const { dir } = await writeProject({
        imports: `const name = String((globalThis as any).name);\nconst all = require('${'../'.repeat(40)}' + name);`,
        returns: 'String(all)',
      });
      // esbuild lists every folder under / before it loads anything: only ending it stops that.
      const outcome = await bundlePlugin(path.join(dir, 'index.ts'), { limits: { timeoutMs: 2000 } });
      expect(outcome.ok).toBe(false);
      if (!outcome.ok) {
        expect(outcome.error).toMatch(/^the build (took longer than 2 s|reads more than 2000 files) \(/);
        expect(outcome.error).not.toContain(SECRET);
      }
      const next = await bundlePlugin(path.join(dir, '..', 'healthy', 'index.ts'));
      expect(next.ok, next.ok ? '' : next.error).toBe(true);
    });
  });

  describe('loaders and import attributes', () => {
    it('a .txt file of the plugin (esbuild would load it as text)', async () => {
      const { host } = await startWith({
        imports: `import notes from './notes.txt';`,
        returns: 'notes',
        files: { 'notes.txt': 'inside' },
      });
      await expectRefused(
        host,
        /index\.ts:\d+:\d+: import "\.\/notes\.txt" is refused: only \.ts, .* files can be imported/,
      );
    });

    it('a .env file of the plugin imported as text', async () => {
      const { host } = await startWith({
        imports: `import env from './.env' with { type: 'text' };`,
        returns: 'env',
        files: { '.env': 'TOKEN=inside' },
      });
      await expectRefused(host, /index\.ts:\d+:\d+: import "\.\/\.env" with \{ type: "text" \} is refused: /);
    });

    it('a .css file of the plugin', async () => {
      const { host } = await startWith({
        imports: `import './style.css';`,
        files: { 'style.css': 'a { color: red }' },
      });
      await expectRefused(host, /index\.ts:\d+:\d+: import "\.\/style\.css" is refused: only \.ts/);
    });

    it.each(['text', 'bytes', 'json', 'file'])(
      'with { type: "%s" } on a source file of the plugin',
      async (type) => {
        const { host } = await startWith({
          imports: `import data from './data.ts' with { type: '${type}' };`,
          returns: 'String(data)',
          files: { 'data.ts': 'export default 1;\n' },
        });
        await expectRefused(
          host,
          new RegExp(
            `index\\.ts:\\d+:\\d+: import "\\./data\\.ts" with \\{ type: "${type}" \\} is refused: import attributes may not change how a file is loaded`,
          ),
        );
      },
    );

    it('an attribute other than type', async () => {
      const { host } = await startWith({
        imports: `import data from './data.json' with { type: 'json', loader: 'text' };`,
        returns: 'data',
        files: { 'data.json': '{"a":1}' },
      });
      await expectRefused(
        host,
        /import "\.\/data\.json" with \{ loader: "text", type: "json" \} is refused: import attributes may not change/,
      );
    });

    it('a computed import() of plugin files with a text attribute', async () => {
      const { host } = await startWith({
        imports:
          // biome-ignore lint/suspicious/noTemplateCurlyInString: plugin source, bundled by esbuild
          "const name = String((globalThis as any).name);\nconst data = import(`./data/${name}.ts`, { with: { type: 'text' } });",
        returns: 'String(data)',
        files: { 'data/one.ts': 'export default 1;\n' },
      });
      await expectRefused(
        host,
        /"data\/one\.ts" \(matched by an import\(\) or require\(\) of a computed path\) is refused: import attributes may not change/,
      );
    });

    it('a data: URL', async () => {
      const { host } = await startWith({
        imports: `import value from 'data:text/javascript,export default 42';`,
        returns: 'value',
      });
      await expectRefused(
        host,
        /import "data:text\/javascript,export default 42" is refused: it is not a file/,
      );
    });

    it('file:// URLs and ~ are not resolved', async () => {
      const { host } = await startWith((root) => ({
        imports: `import a from 'file://${path.join(root, 'secret.js')}';\nimport b from '~/secret.txt';`,
        returns: '[a, b]',
      }));
      await expectRefused(host, /Could not resolve "file:\/\//);
      await expectRefused(host, /Could not resolve "~\/secret\.txt"/);
    });

    it.skipIf(process.platform === 'win32')(
      'a named pipe in the plugin folder fails the build instead of hanging it',
      async () => {
        const { host } = await startWith({
          imports: `import piped from './pipe.js';`,
          returns: 'piped',
          prepare: (_root, dir) => {
            execFileSync('mkfifo', [path.join(dir, 'pipe.js')]);
          },
        });
        await expectRefused(host, /"pipe\.js" is refused: it is not a regular file/);
      },
    );
  });

  describe('what builds, and carries nothing of the host', () => {
    /** Bundles plugins/evil/ directly: the bundle text must not hold the secret. */
    async function bundleOf(attack: Attack) {
      const { dir, host } = await startWith(attack);
      const built = await bundlePlugin(path.join(dir, 'index.ts'));
      return { built, host };
    }

    it('new URL("../../secret.txt", import.meta.url) is not bundled', async () => {
      const { built, host } = await bundleOf({
        imports: `const url = new URL('../../secret.txt', import.meta.url);`,
        returns: 'String(url)',
      });
      expect(built.ok).toBe(true);
      if (built.ok) expect(built.code).not.toContain(SECRET);
      expect(host.plugins.find((p) => p.id === 'evil')?.diagnostics.join('\n') ?? '').not.toContain(SECRET);
    });

    it('import() of a computed name stays dynamic and the isolate has no module loader', async () => {
      const { built, host } = await bundleOf({
        imports: `const load = (name: string) => import(name);`,
        returns: 'await load("../../secret.js").then(String, (e) => "no: " + e.message)',
      });
      expect(built.ok).toBe(true);
      if (built.ok) expect(built.code).not.toContain(SECRET);
      const outcome = await host.session().call('attack', {});
      expect(textOf(outcome)).not.toContain(SECRET);
    });

    it('a package.json browser field pointing outside is not used (platform neutral)', async () => {
      const { built } = await bundleOf({
        imports: `import value from 'pkg';`,
        returns: 'value',
        files: {
          'node_modules/pkg/package.json': JSON.stringify({
            name: 'pkg',
            main: 'index.js',
            browser: { './index.js': '../../../../secret.js' },
          }),
          'node_modules/pkg/index.js': `module.exports = 'inside';`,
        },
      });
      expect(built.ok, built.ok ? '' : built.error).toBe(true);
      if (built.ok) expect(built.code).not.toContain(SECRET);
    });

    it('a tsconfig.json extends outside is not read (its JSX factory does not reach the bundle)', async () => {
      const { built } = await bundleOf({
        imports: `import view from './view.tsx';`,
        returns: 'String(view)',
        files: {
          'tsconfig.json': JSON.stringify({ extends: '../../shared.json' }),
          'view.tsx': 'const h = (...a: unknown[]) => a;\nexport default <b>x</b>;\n',
        },
        prepare: (root) =>
          writeFile(
            path.join(root, 'shared.json'),
            JSON.stringify({ compilerOptions: { jsxFactory: SECRET.replace(/-/g, '_') } }),
          ),
      });
      expect(built.ok, built.ok ? '' : built.error).toBe(true);
      if (built.ok) expect(built.code).not.toContain(SECRET.replace(/-/g, '_'));
    });

    it('a sourceMappingURL comment naming a host file is not followed', async () => {
      const { built } = await bundleOf({
        imports: `import value from './mapped.js';`,
        returns: 'value',
        files: { 'mapped.js': `export default 'inside';\n//# sourceMappingURL=../../secret.json\n` },
      });
      expect(built.ok, built.ok ? '' : built.error).toBe(true);
      if (built.ok) expect(built.code).not.toContain(SECRET);
    });

    it('a plugin using its own files, packages, JSON, CommonJS and TSX loads and works', async () => {
      const { host } = await startWith({
        imports: [
          `import data from './data/values.json';`,
          `import typed from './data/values.json' with { type: 'json' };`,
          `import cjs from './legacy.cjs';`,
          `import view from './view.tsx';`,
          `import pkg from 'local-pkg';`,
          `import { linked } from './linked.ts';`,
        ].join('\n'),
        returns: '[data.v, typed.v, cjs, view, pkg, linked]',
        files: {
          'data/values.json': '{"v":1}',
          'legacy.cjs': `module.exports = require('./nested/two.cjs');`,
          'nested/two.cjs': 'module.exports = 2;',
          'view.tsx': '/** @jsx h */\nconst h = (tag: string) => tag;\nexport default <i />;\n',
          'node_modules/local-pkg/package.json': JSON.stringify({
            name: 'local-pkg',
            exports: { '.': { import: './esm.mjs', default: './cjs.cjs' } },
          }),
          'node_modules/local-pkg/esm.mjs': `export default 'pkg';`,
          'src/real.ts': `export const linked = 'linked';`,
        },
        prepare: (_root, dir) => symlink(path.join(dir, 'src', 'real.ts'), path.join(dir, 'linked.ts')),
      });
      const report = host.plugins.find((p) => p.id === 'evil');
      expect(report?.status, report?.diagnostics.join('\n')).toBe('loaded');
      const outcome = await host.session().call('attack', {});
      expect(JSON.parse(textOf(outcome))).toEqual([1, 1, 2, 'i', 'pkg', 'linked']);
    });
  });
});
