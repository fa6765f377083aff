import { promises as fs } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createBuiltinTools } from '@toolhost/host/internal';
import { describe, expect, it } from 'vitest';
import { execView } from '../../../packages/host/src/jail/index.js';
import { ControlGuard, hostCodeFoldersOf } from '../../../packages/host/src/workspace/control.js';

/**
 * The host's own code includes what it loads: zod, esbuild (whose binary it runs at every
 * plugin build), isolated-vm, the MCP SDK. Where the host's package is not itself inside a
 * `node_modules` folder (a checkout like this one, npm workspaces, `npm link`), or is in a
 * pnpm store (`node_modules/.pnpm/<pkg>/node_modules/…`, its dependencies beside it), those
 * packages were protected by nothing: the built-in `write` and `exec` could change what the
 * host runs on its next start, or at the next plugin build.
 */
const checkout = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const require = createRequire(path.join(checkout, 'packages', 'host', 'package.json'));
/** Where the host's dependencies resolve from: the checkout's node_modules. */
const dependency = (name: string) =>
  path.relative(checkout, path.dirname(require.resolve(`${name}/package.json`)));

const context = {
  toolUseId: 't',
  sessionId: 's',
  signal: new AbortController().signal,
  log: { debug() {}, info() {}, warn() {}, error() {} },
  progress() {},
} as never;

describe("the host's dependencies are the host's own code", () => {
  it('the built-in write cannot change a package the host loads (zod, esbuild, isolated-vm)', async () => {
    const write = createBuiltinTools({ root: checkout }).find((t) => t.descriptor.name === 'write');
    for (const name of ['zod', 'esbuild', 'isolated-vm']) {
      const target = path.join(dependency(name), 'never-written.js');
      expect(target.startsWith(`node_modules${path.sep}`), target).toBe(true);
      const outcome = await write?.executor
        .run({ path: target, content: 'x' }, context)
        .catch((error: unknown) => error);
      const made = await fs.access(path.join(checkout, target)).then(
        () => true,
        () => false,
      );
      if (made) await fs.rm(path.join(checkout, target));
      expect(String(outcome), name).toMatch(/the host's own code/);
      expect(made, name).toBe(false);
    }
  });

  it("exec's jail holds the node_modules folder the host loads its dependencies from read-only", () => {
    const guard = new ControlGuard(checkout);
    const view = execView({
      root: checkout,
      cwd: checkout,
      control: guard.jailPaths(),
      grants: { read: [], write: [], net: [], env: [] },
      env: {},
      seccomp: false,
    });
    const held = (view.readOnlyOver ?? []).map((bind) => bind.path);
    expect(held).toContain(path.join(checkout, 'node_modules'));
  });

  it('a host installed from a pnpm store protects the store, where its dependencies are', async () => {
    const base = await fs.realpath(await fs.mkdtemp(path.join(tmpdir(), 'toolhost-pnpm-')));
    try {
      const store = path.join(base, 'proj', 'node_modules', '.pnpm');
      const hostReal = path.join(store, '@toolhost+host@1.0.0', 'node_modules', '@toolhost', 'host');
      const zodReal = path.join(store, 'zod@4.0.0', 'node_modules', 'zod');
      await fs.mkdir(hostReal, { recursive: true });
      await fs.mkdir(zodReal, { recursive: true });
      await fs.mkdir(path.join(base, 'proj', 'node_modules', '@toolhost'), { recursive: true });
      const linked = path.join(base, 'proj', 'node_modules', '@toolhost', 'host');
      await fs.symlink(hostReal, linked);
      const folders = hostCodeFoldersOf([linked]);
      const guard = new ControlGuard(path.join(base, 'proj'), { hostCode: folders });
      await expect(
        guard.confine(path.join(base, 'proj'), path.relative(path.join(base, 'proj'), zodReal), 'write'),
      ).rejects.toThrow(/the host's own code/);
    } finally {
      await fs.rm(base, { recursive: true, force: true });
    }
  });
});
