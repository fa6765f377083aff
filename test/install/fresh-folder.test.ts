import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, REPO } from '../cli/cli.js';

/**
 * Embedding outside the checkout, as the README says: `npm run pack` writes the two packages'
 * tarballs, and a fresh folder with `"type": "module"` installs them (and zod) and runs an agent
 * file and the `toolhost` command against a plugin of its own.
 */

const VERSION = JSON.parse(readFileSync(path.join(REPO, 'packages/host/package.json'), 'utf8'))
  .version as string;
const npm = (args: readonly string[], cwd: string) =>
  spawnSync('npm', [...args], { cwd, encoding: 'utf8', timeout: 180_000, env: { ...process.env } });

const AGENT = `import { createHost } from '@toolhost/host';
import { defineTool } from '@toolhost/plugin-sdk';
import * as z from 'zod';

const host = await createHost({
  root: process.cwd(),
  customTools: [
    defineTool({
      name: 'add',
      description: 'Adds two numbers',
      input: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }) => String(a + b),
    }),
  ],
});
const session = host.session();
const sum = await session.call('add', { a: 2, b: 40 });
const echo = await session.call('healthy_echo', { text: 'from a fresh folder' });
console.log(JSON.stringify([sum.result.content, echo.result.content]));
await host.close();
`;

describe('a fresh folder installs the packed packages and runs them', () => {
  let folder: string;
  beforeAll(() => {
    folder = mkdtempSync(path.join(tmpdir(), 'toolhost-fresh-'));
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('npm run pack, npm install of the tarballs, an agent file and the toolhost command', {
    timeout: 300_000,
  }, () => {
    const pack = npm(['run', 'pack'], REPO);
    expect(pack.status, pack.stderr).toBe(0);
    const sdk = path.join(REPO, 'packs', `toolhost-plugin-sdk-${VERSION}.tgz`);
    const host = path.join(REPO, 'packs', `toolhost-host-${VERSION}.tgz`);

    writeFileSync(
      path.join(folder, 'package.json'),
      JSON.stringify({ name: 'my-agent', private: true, type: 'module' }, null, 2),
    );
    const install = npm(
      ['install', '--no-audit', '--no-fund', '--prefer-offline', sdk, host, 'zod@4.6.7'],
      folder,
    );
    expect(install.status, install.stderr).toBe(0);
    mkdirSync(path.join(folder, 'plugins'));
    cpSync(path.join(FIXTURES, 'healthy'), path.join(folder, 'plugins', 'healthy'), { recursive: true });
    writeFileSync(path.join(folder, 'agent.js'), AGENT);

    const agent = spawnSync(process.execPath, ['--no-node-snapshot', 'agent.js'], {
      cwd: folder,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(agent.stderr).toBe('');
    expect(JSON.parse(agent.stdout)).toEqual([
      [{ type: 'text', text: '42' }],
      [{ type: 'text', text: 'echo: from a fresh folder' }],
    ]);

    const list = spawnSync('npx', ['toolhost', 'list', '--root', '.'], {
      cwd: folder,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(list.status, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^ {2}healthy_echo +plugin +plugin:healthy /m);
  });
});
