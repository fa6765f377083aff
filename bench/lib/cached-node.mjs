// A Node of another major version, from the npm registry's `node` package (binary and headers, no
// compiler), installed once into a cache outside the checkout, as .ci/run brings Node 24 to an
// older machine. For the runtime-switch bench and the old-Node install test.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import * as path from 'node:path';

/** `${XDG_CACHE_HOME:-~/.cache}/toolhost`. */
export const CACHE = path.join(process.env.XDG_CACHE_HOME || path.join(homedir(), '.cache'), 'toolhost');

/**
 * Node `major` (`node@<major>`), installed if missing: its folder (the package's own), its binary,
 * and its headers' folder (for node-gyp). Throws, saying why, when npm cannot install it.
 */
export function cachedNode(major) {
  const dir = path.join(CACHE, `node-${major}`);
  const pkg = path.join(dir, 'node_modules', 'node');
  const binary = path.join(pkg, 'bin', 'node');
  if (!existsSync(binary)) {
    mkdirSync(dir, { recursive: true });
    const install = spawnSync(
      'npm',
      [
        'install',
        '--prefix',
        dir,
        '--no-save',
        '--no-package-lock',
        '--no-audit',
        '--no-fund',
        '--loglevel=error',
        `node@${major}`,
      ],
      { encoding: 'utf8', timeout: 180_000 },
    );
    if (install.status !== 0) throw new Error(`cannot install node@${major} into ${dir}: ${install.stderr}`);
  }
  return { dir, binary, headers: path.join(pkg, 'node_modules', `node-${process.platform}-${process.arch}`) };
}
