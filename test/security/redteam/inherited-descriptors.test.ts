import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

/**
 * A descriptor the host inherited without close-on-exec (a parent that leaks descriptors: a
 * shell's `exec 40<dir`, an IDE, a process manager) used to pass through bubblewrap into every
 * jail at its number. A folder of the host held that way is a way around every mount of the
 * jail: exec wrote the config through `/proc/self/fd/40/…`, and the executor could open any file
 * of the host relative to it.
 */
const HOST = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../fixtures/hosts/inherited-fd-host.mjs',
);
const FD = 40;
const CONFIG = JSON.stringify({ builtins: { exec: { enabled: true } } });

let root: string;
beforeEach(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), 'toolhost-inherited-fd-')));
  await mkdir(path.join(root, 'plugins'));
  await writeFile(path.join(root, 'toolhost.config.json'), CONFIG);
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('a descriptor the host inherited', () => {
  it('reaches neither exec nor the executor: the jail gets /dev/null at its number', async () => {
    // bash opens fd 40 on the workspace without close-on-exec, as a leaking parent would.
    const run = spawnSync(
      'bash',
      [
        '-c',
        `exec ${FD}<"$1"; exec "$2" --no-node-snapshot "$3" "$1" ${FD}`,
        'host',
        root,
        process.execPath,
        HOST,
      ],
      { encoding: 'utf8', timeout: 60_000 },
    );
    expect(run.status, run.stderr).toBe(0);
    const seen = JSON.parse(run.stdout.trim().split('\n').pop() as string);
    expect(seen.exec).toBe('');
    expect(seen.config).toBe(CONFIG);
    expect(await readdir(path.join(root, 'plugins'))).toEqual([]);
    expect(seen.executor[String(FD)]).not.toBe('folder');
    expect(seen.executor[`${FD}:entries`]).toBeUndefined();
  });
});
