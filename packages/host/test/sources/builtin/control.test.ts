import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BuiltinToolsOptions } from '../../../src/sources/builtin/index.js';
import { makeSandbox, nodeScript, type Sandbox, textOf } from './helpers.js';

/**
 * The host's control files — the config in force, the plugins folder, the skills folder,
 * `.toolhost/` — are closed to the built-in tools unless `controlFiles` opens them: a model must
 * not widen its own policy, nor write the skills later sessions' prompts list.
 * Every way of naming them is tried; each refusal must leave them byte for byte as they were.
 */
let sb: Sandbox;
const CONFIG = '{ "builtins": { "exec": { "enabled": false } } }\n';
const PLUGIN = 'export default {};\n';
const SKILL = '---\nname: hello\ndescription: Greets\n---\nSay hello.\n';

beforeEach(async () => {
  sb = await makeSandbox();
  const at = (rel: string) => path.join(sb.root, rel);
  await fs.writeFile(at('toolhost.config.json'), CONFIG);
  await fs.mkdir(at('plugins/hello'), { recursive: true });
  await fs.writeFile(at('plugins/hello/index.ts'), PLUGIN);
  await fs.mkdir(at('skills/hello'), { recursive: true });
  await fs.writeFile(at('skills/hello/SKILL.md'), SKILL);
  await fs.mkdir(at('sub'));
  await fs.symlink('toolhost.config.json', at('config-link'));
  await fs.symlink('.', at('alias'));
  await fs.symlink('plugins', at('plugins-link'));
  await fs.symlink('skills', at('skills-link'));
});
afterEach(async () => {
  await sb.cleanup();
});

type Options = Omit<BuiltinToolsOptions, 'root'>;
const OPEN: Options = { controlFiles: { config: 'write', plugins: 'write' } };

/** `config-hard`: a second name of the config file (made only where needed: it gives the config 2 links). */
const hardLinkConfig = () =>
  fs.link(path.join(sb.root, 'toolhost.config.json'), path.join(sb.root, 'config-hard'));
const configText = () => fs.readFile(path.join(sb.root, 'toolhost.config.json'), 'utf8');
const pluginText = () => fs.readFile(path.join(sb.root, 'plugins/hello/index.ts'), 'utf8');
const exists = (rel: string) =>
  fs.lstat(path.join(sb.root, rel)).then(
    () => true,
    () => false,
  );

/** The control files as they were set up, plus the names no refused call may create. */
async function expectUntouched(): Promise<void> {
  expect(await configText()).toBe(CONFIG);
  expect(await pluginText()).toBe(PLUGIN);
  expect(await exists('plugins/evil')).toBe(false);
  expect(await exists('.toolhost')).toBe(false);
  expect(await fs.readdir(path.join(sb.root, 'plugins'))).toEqual(['hello']);
  expect(await fs.readFile(path.join(sb.root, 'skills/hello/SKILL.md'), 'utf8')).toBe(SKILL);
  expect(await fs.readdir(path.join(sb.root, 'skills'))).toEqual(['hello']);
}

const CONFIG_REFUSAL =
  /is a host control file \(the host config file toolhost\.config\.json\).*builtins\.controlFiles\.config: "write"/;
const PLUGINS_REFUSAL =
  /is inside a host control folder \(the plugins folder, whose code the host loads plugins\/\).*builtins\.controlFiles\.plugins: "write"/;
const SKILLS_REFUSAL =
  /is inside a host control folder \(the skills folder, whose skills the host lists in the model's prompt skills\/\).*builtins\.controlFiles\.skills: "write"/;
const CACHE_REFUSAL =
  /is inside a host control folder \(the host's bundle cache \.toolhost\/\).*No config key opens it/;

/** Ways to reach the config file, each with what a refusal must say. */
const configPaths: Record<string, (sb: Sandbox) => string> = {
  'the direct path': () => 'toolhost.config.json',
  'a path with ..': () => 'sub/../toolhost.config.json',
  'an absolute path': (s) => path.join(s.root, 'toolhost.config.json'),
  'a symlink to the config': () => 'config-link',
  'a symlinked parent directory': () => 'alias/toolhost.config.json',
  'a case variant': () => 'TOOLHOST.Config.json',
  'a long-s variant (ſ folds to s)': () => 'toolhost.config.j\u017Fon',
};

/** Ways to put a file in the plugins folder. */
const pluginPaths: Record<string, () => string> = {
  'an existing plugin file': () => 'plugins/hello/index.ts',
  'a new file in a new plugin folder': () => 'plugins/evil/index.ts',
  'a path with ..': () => 'sub/../plugins/evil/index.ts',
  'a symlink to the plugins folder': () => 'plugins-link/evil/index.ts',
  'a symlinked parent directory': () => 'alias/plugins/evil/index.ts',
  'a case variant': () => 'Plugins/evil/index.ts',
  'the folder name itself': () => 'plugins',
};

/** Ways to plant a skill. */
const skillPaths: Record<string, () => string> = {
  'an existing SKILL.md': () => 'skills/hello/SKILL.md',
  'a new SKILL.md in a new skill folder': () => 'skills/evil/SKILL.md',
  'a path with ..': () => 'sub/../skills/evil/SKILL.md',
  'a symlink to the skills folder': () => 'skills-link/evil/SKILL.md',
  'a symlinked parent directory': () => 'alias/skills/evil/SKILL.md',
  'a case variant': () => 'Skills/evil/SKILL.md',
  'the folder name itself': () => 'skills',
};

const cachePaths: Record<string, () => string> = {
  'a new file under .toolhost/': () => '.toolhost/x',
  'a new file deeper in .toolhost/': () => '.toolhost/cache/bundle.js',
  'a case variant': () => '.TOOLHOST/cache/bundle.js',
};

describe('write and edit refuse the control files by default', () => {
  it.each(Object.entries(configPaths))('write of the config through %s', async (_case, target) => {
    await expect(
      sb.call('write', { path: target(sb), content: '{"builtins":{"exec":{"enabled":true}}}' }),
    ).rejects.toThrow(CONFIG_REFUSAL);
    await expectUntouched();
  });

  it.each(Object.entries(configPaths))('edit of the config through %s', async (_case, target) => {
    await expect(
      sb.call('edit', { path: target(sb), oldText: '"enabled": false', newText: '"enabled": true' }),
    ).rejects.toThrow(CONFIG_REFUSAL);
    await expectUntouched();
  });

  it('write of the config through a hard link (its inode is the config’s)', async () => {
    await hardLinkConfig();
    await expect(sb.call('write', { path: 'config-hard', content: '{}' })).rejects.toThrow(CONFIG_REFUSAL);
    await expect(
      sb.call('edit', { path: 'config-hard', oldText: '"enabled": false', newText: '"enabled": true' }),
    ).rejects.toThrow(CONFIG_REFUSAL);
    await expectUntouched();
  });

  it.each(Object.entries(pluginPaths))('write into plugins/ through %s', async (_case, target) => {
    await expect(sb.call('write', { path: target(), content: 'evil' })).rejects.toThrow(PLUGINS_REFUSAL);
    await expectUntouched();
  });

  it('edit of a plugin file', async () => {
    await expect(
      sb.call('edit', { path: 'plugins/hello/index.ts', oldText: '{}', newText: '{ evil: 1 }' }),
    ).rejects.toThrow(PLUGINS_REFUSAL);
    await expectUntouched();
  });

  it.each(Object.entries(skillPaths))('write into skills/ through %s', async (_case, target) => {
    await expect(sb.call('write', { path: target(), content: SKILL })).rejects.toThrow(SKILLS_REFUSAL);
    await expectUntouched();
  });

  it('edit of a SKILL.md', async () => {
    await expect(
      sb.call('edit', { path: 'skills/hello/SKILL.md', oldText: 'Say hello.', newText: 'Run exec.' }),
    ).rejects.toThrow(SKILLS_REFUSAL);
    await expectUntouched();
  });

  it.each(Object.entries(cachePaths))('write into .toolhost/ through %s', async (_case, target) => {
    await expect(sb.call('write', { path: target(), content: 'poisoned' })).rejects.toThrow(CACHE_REFUSAL);
    await expectUntouched();
  });

  it('.toolhost/ stays closed even when everything else is opened', async () => {
    await expect(sb.call('write', { path: '.toolhost/cache/x.js', content: 'x' }, OPEN)).rejects.toThrow(
      CACHE_REFUSAL,
    );
    await expectUntouched();
  });
});

describe('the paths a host configures are the ones closed', () => {
  it('a config file under another name, and the default name too', async () => {
    await fs.mkdir(path.join(sb.root, 'conf'));
    await fs.writeFile(path.join(sb.root, 'conf/agent.json'), CONFIG);
    const options: Options = { controlPaths: { configFile: path.join(sb.root, 'conf/agent.json') } };
    await expect(sb.call('write', { path: 'conf/agent.json', content: '{}' }, options)).rejects.toThrow(
      /host control file \(the host config file conf\/agent\.json\)/,
    );
    await expect(sb.call('write', { path: 'toolhost.config.json', content: '{}' }, options)).rejects.toThrow(
      CONFIG_REFUSAL,
    );
    expect(await fs.readFile(path.join(sb.root, 'conf/agent.json'), 'utf8')).toBe(CONFIG);
  });

  it('a plugins folder elsewhere (the default plugins/ is then an ordinary folder)', async () => {
    const options: Options = { controlPaths: { pluginsDir: 'tools/ext' } };
    await expect(
      sb.call('write', { path: 'tools/ext/evil/index.ts', content: 'x' }, options),
    ).rejects.toThrow(/the plugins folder, whose code the host loads tools\/ext\//);
    expect(await exists('tools')).toBe(false);
    expect(textOf(await sb.call('write', { path: 'plugins/notes.txt', content: 'x' }, options))).toBe(
      'Created plugins/notes.txt (1 bytes)',
    );
  });
});

describe('the skills folder a host configures is the one closed', () => {
  it('a skills folder elsewhere (the default skills/ is then an ordinary folder)', async () => {
    const options: Options = { controlPaths: { skillsDir: 'agent/skills' } };
    await expect(
      sb.call('write', { path: 'agent/skills/evil/SKILL.md', content: SKILL }, options),
    ).rejects.toThrow(/the skills folder, whose skills the host lists in the model's prompt agent\/skills\//);
    expect(await exists('agent')).toBe(false);
    expect(textOf(await sb.call('write', { path: 'skills/notes.txt', content: 'x' }, options))).toBe(
      'Created skills/notes.txt (1 bytes)',
    );
  });

  it('skills/ stays readable', async () => {
    expect(textOf(await sb.call('read', { path: 'skills/hello/SKILL.md' }))).toContain('Say hello.');
  });
});

describe('controlFiles opens them on purpose', () => {
  it.each(Object.entries(configPaths))('config: "write" allows a write through %s', async (_case, target) => {
    const content = '{ "builtins": { "exec": { "enabled": true } } }\n';
    await sb.call('write', { path: target(sb), content }, { controlFiles: { config: 'write' } });
    // Case and Unicode variants name another file on this case-sensitive file system.
    if (!/variant/.test(_case)) expect(await configText()).toBe(content);
  });

  it('config: "write" allows an edit, which keeps the symlink', async () => {
    const input = { path: 'config-link', oldText: '"enabled": false', newText: '"enabled": true' };
    await sb.call('edit', input, { controlFiles: { config: 'write' } });
    expect(await configText()).toContain('"enabled": true');
    expect((await fs.lstat(path.join(sb.root, 'config-link'))).isSymbolicLink()).toBe(true);
  });

  it.each(Object.entries(pluginPaths).filter(([name]) => name !== 'the folder name itself'))(
    'plugins: "write" allows a write through %s',
    async (_case, target) => {
      expect(
        textOf(
          await sb.call('write', { path: target(), content: 'ok' }, { controlFiles: { plugins: 'write' } }),
        ),
      ).toMatch(/^(Created|Overwrote) /);
    },
  );

  it('opening plugins/ leaves the config closed, and opening the config leaves plugins/ closed', async () => {
    await expect(
      sb.call(
        'write',
        { path: 'toolhost.config.json', content: '{}' },
        { controlFiles: { plugins: 'write' } },
      ),
    ).rejects.toThrow(CONFIG_REFUSAL);
    await expect(
      sb.call(
        'write',
        { path: 'plugins/evil/index.ts', content: 'x' },
        { controlFiles: { config: 'write' } },
      ),
    ).rejects.toThrow(PLUGINS_REFUSAL);
    await expectUntouched();
  });

  it.each(Object.entries(skillPaths).filter(([name]) => name !== 'the folder name itself'))(
    'skills: "write" allows a write through %s',
    async (_case, target) => {
      expect(
        textOf(
          await sb.call('write', { path: target(), content: SKILL }, { controlFiles: { skills: 'write' } }),
        ),
      ).toMatch(/^(Created|Overwrote) /);
    },
  );

  it('opening skills/ leaves plugins/ closed, and opening plugins/ leaves skills/ closed', async () => {
    await expect(
      sb.call(
        'write',
        { path: 'plugins/evil/index.ts', content: 'x' },
        { controlFiles: { skills: 'write' } },
      ),
    ).rejects.toThrow(PLUGINS_REFUSAL);
    await expect(
      sb.call(
        'write',
        { path: 'skills/evil/SKILL.md', content: SKILL },
        { controlFiles: { plugins: 'write' } },
      ),
    ).rejects.toThrow(SKILLS_REFUSAL);
    await expectUntouched();
  });

  it('config: "read" does not allow writing it', async () => {
    await expect(
      sb.call('write', { path: 'toolhost.config.json', content: '{}' }, { controlFiles: { config: 'read' } }),
    ).rejects.toThrow(CONFIG_REFUSAL);
    await expectUntouched();
  });

  it('a hard link to the config stays refused when the config is opened: no file with two names is written', async () => {
    await hardLinkConfig();
    await expect(
      sb.call('write', { path: 'config-hard', content: '{}' }, { controlFiles: { config: 'write' } }),
    ).rejects.toThrow(/has 2 hard links/);
    await expectUntouched();
  });
});

describe("the host's own code is never writable", () => {
  it('refuses a write into the node_modules folder the host is installed in, whatever controlFiles opens', async () => {
    const installed = path.join(sb.root, 'node_modules');
    await fs.mkdir(path.join(installed, '@toolhost/host/dist'), { recursive: true });
    await fs.mkdir(path.join(installed, 'zod'), { recursive: true });
    const options: Options = { ...OPEN, controlPaths: { hostCode: [installed] } };
    for (const target of ['node_modules/@toolhost/host/dist/index.js', 'node_modules/zod/index.js']) {
      await expect(sb.call('write', { path: target, content: 'pwned' }, options)).rejects.toThrow(
        /inside a host control folder \(the host's own code, which it runs on its next start node_modules\/\).*No config key opens it/,
      );
      expect(await exists(target)).toBe(false);
    }
  });

  it('protects the running host by default: its own package cannot be written from a root that holds it', async () => {
    const checkout = import.meta.dirname.slice(
      0,
      import.meta.dirname.indexOf(`${path.sep}packages${path.sep}host${path.sep}`),
    );
    const { createBuiltinTools } = await import('../../../src/sources/builtin/index.js');
    const write = createBuiltinTools({ root: checkout }).find((t) => t.descriptor.name === 'write');
    const target = 'packages/host/src/never-written.ts';
    const outcome = await write?.executor
      .run({ path: target, content: 'x' }, {
        toolUseId: 't',
        sessionId: 's',
        signal: new AbortController().signal,
        log: { debug() {}, info() {}, warn() {}, error() {} },
        progress() {},
      } as never)
      .catch((error: unknown) => error);
    expect(String(outcome)).toMatch(/the host's own code/);
    expect(
      await fs.access(path.join(checkout, target)).then(
        () => true,
        () => false,
      ),
    ).toBe(false);
  });
});

describe('reading the control files', () => {
  const READ_REFUSAL =
    /is a host control file \(the host config file toolhost\.config\.json\); built-in tools may not read it, since it can hold secrets.*builtins\.controlFiles\.config: "read"/;

  it.each([
    ['the direct path', 'toolhost.config.json'],
    ['a symlink', 'config-link'],
    ['a hard link', 'config-hard'],
    ['a case variant', 'Toolhost.config.json'],
  ])('read of the config through %s is refused by default (it may hold secrets)', async (_case, target) => {
    if (target === 'config-hard') await hardLinkConfig();
    await expect(sb.call('read', { path: target })).rejects.toThrow(READ_REFUSAL);
  });

  it.each(['read', 'write'] as const)('config: "%s" allows reading it', async (level) => {
    expect(textOf(await sb.call('read', { path: 'config-link' }, { controlFiles: { config: level } }))).toBe(
      CONFIG,
    );
  });

  it('grep does not search the config by default, under any of its names, and says it skipped it', async () => {
    await hardLinkConfig();
    await fs.writeFile(path.join(sb.root, 'sub/notes.txt'), 'exec is mentioned here\n');
    for (const where of ['.', 'toolhost.config.json', 'config-hard']) {
      const out = textOf(await sb.call('grep', { pattern: 'exec', path: where }));
      expect(out, where).not.toContain('"enabled"');
      expect(out, where).toContain('host control file (builtins.controlFiles.config opens the config');
    }
    expect(textOf(await sb.call('grep', { pattern: 'exec' }))).toContain(
      'sub/notes.txt:1:exec is mentioned here',
    );
  });

  it("the HTTP endpoint's bearer tokens cannot be read, nor searched, nor written, whatever controlFiles opens", async () => {
    const token = 'th_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG';
    await fs.mkdir(path.join(sb.root, '.toolhost'));
    await fs.writeFile(
      path.join(sb.root, '.toolhost/serve-tokens.json'),
      `{"tokens":{"default":"${token}"}}\n`,
    );
    await fs.symlink('.toolhost/serve-tokens.json', path.join(sb.root, 'tokens-link'));
    const open: Options = { controlFiles: { config: 'write', plugins: 'write', skills: 'write' } };
    for (const target of ['.toolhost/serve-tokens.json', 'tokens-link', '.TOOLHOST/Serve-Tokens.json']) {
      await expect(sb.call('read', { path: target }, open), target).rejects.toThrow(
        /the HTTP endpoint's bearer tokens .*built-in tools may not read it, since it holds credentials\. No config key opens it/,
      );
    }
    const out = textOf(await sb.call('grep', { pattern: 'th_', path: '.' }, open));
    expect(out).not.toContain(token);
    await expect(
      sb.call('write', { path: '.toolhost/serve-tokens.json', content: '{}' }, open),
    ).rejects.toThrow(/No config key opens it/);
  });

  it('grep searches the config once config: "read" opens it', async () => {
    const out = textOf(await sb.call('grep', { pattern: 'exec' }, { controlFiles: { config: 'read' } }));
    expect(out).toContain('toolhost.config.json:1:{ "builtins": { "exec": { "enabled": false } } }');
  });

  it('plugins/ and .toolhost/ stay readable', async () => {
    await fs.mkdir(path.join(sb.root, '.toolhost'));
    await fs.writeFile(path.join(sb.root, '.toolhost/x'), 'cached');
    expect(textOf(await sb.call('read', { path: 'plugins/hello/index.ts' }))).toBe(PLUGIN);
    expect(textOf(await sb.call('read', { path: '.toolhost/x' }))).toBe('cached');
    expect(textOf(await sb.call('ls', { path: 'plugins' }))).toBe('hello/');
  });
});

describe('exec may not start in a control folder', () => {
  const exec = { exec: { enabled: true } };
  const touch = (cwd: string) => nodeScript("require('fs').writeFileSync('pwned.txt', 'x')", cwd);

  it.each([
    ['plugins/', 'plugins'],
    ['a plugin folder', 'plugins/hello'],
    ['plugins/ through a symlink', 'plugins-link'],
    ['a case variant', 'PLUGINS'],
  ])('cwd in %s is refused', async (_case, cwd) => {
    await expect(sb.call('exec', touch(cwd), exec)).rejects.toThrow(
      /^cwd ".*" is inside a host control folder \(the plugins folder.*exec may not run there.*builtins\.controlFiles\.plugins: "write"/,
    );
    await expectUntouched();
  });

  it('cwd in .toolhost/ is refused', async () => {
    await fs.mkdir(path.join(sb.root, '.toolhost'));
    await expect(sb.call('exec', touch('.toolhost'), exec)).rejects.toThrow(CACHE_REFUSAL);
    expect(await fs.readdir(path.join(sb.root, '.toolhost'))).toEqual([]);
  });

  it('cwd in plugins/ is allowed when plugins/ is opened; the root is always allowed', async () => {
    await sb.call('exec', touch('plugins'), { ...exec, controlFiles: { plugins: 'write' } });
    expect(await exists('plugins/pwned.txt')).toBe(true);
    await sb.call('exec', touch('.'), exec);
    expect(await exists('pwned.txt')).toBe(true);
  });
});
