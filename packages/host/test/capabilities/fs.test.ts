import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CapabilityProvider } from '../../src/capabilities/index.js';
import type { FolderMode } from '../../src/workspace/beneath.js';
import { live, makeProject, provider as makeProvider, type Project, SECRET } from './helpers.js';

let project: Project;
beforeEach(async () => {
  project = await makeProject();
});
afterEach(async () => {
  await project.cleanup();
});

/** Every test runs with folders held by descriptor (Linux's default) and by path (elsewhere). */
const MODES: FolderMode[] = process.platform === 'linux' ? ['descriptors', 'paths'] : ['paths'];
let folderMode: FolderMode;

const provider = (...[root, permissions, grants, extra]: Parameters<typeof makeProvider>) =>
  makeProvider(root, permissions, grants, { ...extra, folderMode });

/** Plugin `demo` declaring and granted read on `data`, read-write on `out`. */
function granted(): CapabilityProvider {
  return provider(
    project.root,
    { fs: { read: ['./data'], write: ['out/'] } },
    { fs: { read: ['data'], write: ['out'] } },
  );
}

const invoke = (p: CapabilityProvider, capability: string, args: unknown) =>
  p.invoke(capability, args, live());

describe.each(MODES)('ctx.fs with folders held by %s', (mode) => {
  beforeEach(() => {
    folderMode = mode;
  });

  describe('fs reads under a granted root', () => {
    it('readFile returns UTF-8 text', async () => {
      expect(await invoke(granted(), 'fs.readFile', { path: 'data/a.txt' })).toBe('alpha\n');
      expect(await invoke(granted(), 'fs.readFile', { path: './data//sub/b.txt' })).toBe('beta\n');
    });

    it('readdir returns sorted names with directories suffixed by /, links not followed', async () => {
      expect(await invoke(granted(), 'fs.readdir', { path: 'data' })).toEqual([
        'a.txt',
        'link-dir',
        'link-out',
        'link-secret',
        'sub/',
      ]);
    });

    it('stat describes files and directories', async () => {
      const file = (await invoke(granted(), 'fs.stat', { path: 'data/a.txt' })) as Record<string, unknown>;
      expect(file).toMatchObject({ size: 6, isFile: true, isDirectory: false });
      expect(typeof file.mtimeMs).toBe('number');
      expect(await invoke(granted(), 'fs.stat', { path: 'data/sub' })).toMatchObject({
        isFile: false,
        isDirectory: true,
      });
    });

    it('a write grant lets the plugin read that root too', async () => {
      await fs.writeFile(path.join(project.root, 'out', 'o.txt'), 'out\n');
      expect(await invoke(granted(), 'fs.readFile', { path: 'out/o.txt' })).toBe('out\n');
    });

    it('a link inside one granted root may lead into another', async () => {
      const p = provider(
        project.root,
        { fs: { read: ['data', 'secret'] } },
        { fs: { read: ['data', 'secret'] } },
      );
      expect(await invoke(p, 'fs.readFile', { path: 'data/link-secret' })).toBe('project secret\n');
    });

    it('reports a missing file and a directory read as a file plainly', async () => {
      await expect(invoke(granted(), 'fs.readFile', { path: 'data/nope.txt' })).rejects.toThrow(
        'ctx.fs.readFile of "data/nope.txt" failed: path "data/nope.txt" does not exist',
      );
      await expect(invoke(granted(), 'fs.readFile', { path: 'data/sub' })).rejects.toThrow(
        'is a directory; use ctx.fs.readdir to list it',
      );
      await expect(invoke(granted(), 'fs.readdir', { path: 'data/a.txt' })).rejects.toThrow(
        'it is a file, not a directory',
      );
    });

    it('refuses a file over fsMaxBytes, naming the limit', async () => {
      await fs.writeFile(path.join(project.root, 'data', 'big.txt'), 'x'.repeat(101));
      const p = provider(
        project.root,
        { fs: { read: ['data'] } },
        { fs: { read: ['data'] } },
        {
          limits: { fsMaxBytes: 100 },
        },
      );
      await expect(invoke(p, 'fs.readFile', { path: 'data/big.txt' })).rejects.toThrow(
        'the file is over the fsMaxBytes limit of 100 bytes',
      );
      await fs.writeFile(path.join(project.root, 'data', 'big.txt'), 'x'.repeat(100));
      expect(await invoke(p, 'fs.readFile', { path: 'data/big.txt' })).toHaveLength(100);
    });

    it('refuses a file that is not UTF-8', async () => {
      await fs.writeFile(path.join(project.root, 'data', 'bin'), Buffer.from([0xff, 0xfe, 0x00]));
      await expect(invoke(granted(), 'fs.readFile', { path: 'data/bin' })).rejects.toThrow(
        'is not UTF-8 text',
      );
    });
  });

  describe('fs writes under a granted write root', () => {
    it('writeFile creates parent folders inside the root', async () => {
      expect(
        await invoke(granted(), 'fs.writeFile', { path: 'out/a/b/c.txt', data: 'héllo' }),
      ).toBeUndefined();
      expect(await fs.readFile(path.join(project.root, 'out', 'a', 'b', 'c.txt'), 'utf8')).toBe('héllo');
    });

    it('writeFile replaces an existing file', async () => {
      await invoke(granted(), 'fs.writeFile', { path: 'out/r.txt', data: 'a long first version' });
      await invoke(granted(), 'fs.writeFile', { path: 'out/r.txt', data: 'short' });
      expect(await fs.readFile(path.join(project.root, 'out', 'r.txt'), 'utf8')).toBe('short');
    });

    it('writeFile creates a granted root that does not exist yet', async () => {
      const p = provider(project.root, { fs: { write: ['gen/cache'] } }, { fs: { write: ['gen'] } });
      await invoke(p, 'fs.writeFile', { path: 'gen/cache/x.json', data: '{}' });
      expect(await fs.readFile(path.join(project.root, 'gen', 'cache', 'x.json'), 'utf8')).toBe('{}');
    });

    it('refuses data over fsMaxBytes, counting UTF-8 bytes', async () => {
      const p = provider(
        project.root,
        { fs: { write: ['out'] } },
        { fs: { write: ['out'] } },
        {
          limits: { fsMaxBytes: 10 },
        },
      );
      await expect(invoke(p, 'fs.writeFile', { path: 'out/x', data: 'é'.repeat(6) })).rejects.toThrow(
        '12 bytes is over the fsMaxBytes limit of 10 bytes',
      );
      await expect(invoke(p, 'fs.writeFile', { path: 'out/x', data: 'x'.repeat(11) })).rejects.toThrow(
        'over the fsMaxBytes limit of 10 bytes',
      );
      await expect(fs.access(path.join(project.root, 'out', 'x'))).rejects.toThrow();
    });
  });

  describe('fs denials name the permission and the config key', () => {
    it('a folder the plugin did not declare', async () => {
      await expect(invoke(granted(), 'fs.readFile', { path: 'secret/s.txt' })).rejects.toThrow(
        'ctx.fs.readFile of "secret/s.txt" is not allowed: plugin "demo" must declare permissions.fs.read ' +
          '["secret"] and config must grant it at plugins.demo.grants.fs.read',
      );
      await expect(invoke(granted(), 'fs.readdir', { path: 'secret' })).rejects.toThrow(
        'plugin "demo" must declare permissions.fs.read ["secret"]',
      );
    });

    it('a folder the plugin declared but config did not grant', async () => {
      const p = provider(project.root, { fs: { read: ['data', 'secret'] } }, { fs: { read: ['data'] } });
      await expect(invoke(p, 'fs.readFile', { path: 'secret/s.txt' })).rejects.toThrow(
        'ctx.fs.readFile of "secret/s.txt" is not allowed: plugin "demo" declares permissions.fs.read ' +
          '["secret"] but config does not grant it; add "secret" to plugins.demo.grants.fs.read',
      );
    });

    it('no fs permission at all', async () => {
      const p = provider(project.root, {}, { fs: { read: ['data'], write: ['data'] } });
      await expect(invoke(p, 'fs.stat', { path: 'data/a.txt' })).rejects.toThrow(
        'ctx.fs.stat of "data/a.txt" is not allowed: plugin "demo" must declare permissions.fs.read ["data"] ' +
          'and config must grant it at plugins.demo.grants.fs.read',
      );
    });

    it('a read-only grant refuses writeFile', async () => {
      await expect(invoke(granted(), 'fs.writeFile', { path: 'data/a.txt', data: 'pwned' })).rejects.toThrow(
        'ctx.fs.writeFile of "data/a.txt" is not allowed: plugin "demo" must declare permissions.fs.write ' +
          '["data"] and config must grant it at plugins.demo.grants.fs.write',
      );
      const declaredWrite = provider(project.root, { fs: { write: ['data'] } }, { fs: { read: ['data'] } });
      await expect(
        invoke(declaredWrite, 'fs.writeFile', { path: 'data/a.txt', data: 'pwned' }),
      ).rejects.toThrow(
        'plugin "demo" declares permissions.fs.write ["data"] but config does not grant it; add "data" to ' +
          'plugins.demo.grants.fs.write',
      );
      // Declared for write but granted for read: still readable.
      expect(await invoke(declaredWrite, 'fs.readFile', { path: 'data/a.txt' })).toBe('alpha\n');
      expect(await fs.readFile(path.join(project.root, 'data', 'a.txt'), 'utf8')).toBe('alpha\n');
    });
  });

  describe('fs escapes are refused and leave the outside untouched', () => {
    beforeEach(async () => {
      await fs.symlink(project.outside, path.join(project.root, 'out', 'linked'));
    });

    const escapes: Record<string, { capability: string; args: (p: Project) => unknown; message: string }> = {
      'a .. path': {
        capability: 'fs.readFile',
        args: () => ({ path: 'data/../../outside/secret.txt' }),
        message: 'paths may not contain ".." segments',
      },
      'a .. path that stays inside': {
        capability: 'fs.readFile',
        args: () => ({ path: 'data/sub/../a.txt' }),
        message: 'paths may not contain ".." segments',
      },
      'an absolute path': {
        capability: 'fs.readFile',
        args: (p) => ({ path: path.join(p.outside, 'secret.txt') }),
        message: 'absolute paths are refused',
      },
      'an absolute path inside the root': {
        capability: 'fs.readFile',
        args: (p) => ({ path: path.join(p.root, 'data', 'a.txt') }),
        message: 'absolute paths are refused',
      },
      'a symlink to an outside file': {
        capability: 'fs.readFile',
        args: () => ({ path: 'data/link-out' }),
        message: 'is not allowed: it leads outside the project root',
      },
      'a symlink to an outside folder': {
        capability: 'fs.readdir',
        args: () => ({ path: 'data/link-dir' }),
        message: 'is not allowed: it leads outside the project root',
      },
      'a symlink to a non-granted folder of the project': {
        capability: 'fs.readFile',
        args: () => ({ path: 'data/link-secret' }),
        message:
          'it leads through a symbolic link outside the granted permissions.fs.read roots ["data","out"]',
      },
      'a write through a dangling symlink': {
        capability: 'fs.writeFile',
        args: () => ({ path: 'out/dangling', data: 'pwned' }),
        message: 'is not allowed: it leads outside the project root',
      },
      'a write through a symlinked folder': {
        capability: 'fs.writeFile',
        args: () => ({ path: 'out/linked/secret.txt', data: 'pwned' }),
        message: 'is not allowed: it leads outside the project root',
      },
      'a NUL byte': {
        capability: 'fs.readFile',
        args: () => ({ path: 'data/a.txt\0.png' }),
        message: 'path: must not contain a NUL byte',
      },
    };

    for (const [name, { capability, args, message }] of Object.entries(escapes)) {
      it(name, async () => {
        const before = await project.snapshotOutside();
        await expect(invoke(granted(), capability, args(project))).rejects.toThrow(message);
        expect(await project.snapshotOutside()).toEqual(before);
        expect(before).toEqual({ 'secret.txt': SECRET });
      });
    }

    it('error messages never show host paths the plugin did not write', async () => {
      for (const { capability, args } of Object.values(escapes)) {
        const input = args(project);
        if (JSON.stringify(input).includes(project.base)) continue;
        const message = await invoke(granted(), capability, input).then(
          () => 'resolved',
          (error: Error) => error.message,
        );
        expect(message).toMatch(/^ctx\.fs\./);
        expect(message).not.toContain(project.base);
      }
    });
  });
});
