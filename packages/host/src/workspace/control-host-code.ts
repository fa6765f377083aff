/** Where the running host's code lives, a control path of its own (control.ts). */
import { realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDirectorySync, isFileSync } from '../util/stat.js';

/** The folder holding the `package.json` of the package `file` belongs to. */
function packageFolder(file: string): string | undefined {
  let dir = path.dirname(file);
  for (;;) {
    if (path.basename(dir) !== 'node_modules' && isFileSync(path.join(dir, 'package.json'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * Where the running host's code lives: its own package, the SDK's, and every folder the host loads
 * its dependencies (zod, esbuild, isolated-vm, …) from, since a model that could write them would
 * change what the host runs on its next start (esbuild's binary, at the next plugin build).
 */
function hostCodeFolders(): string[] {
  const packages: string[] = [];
  const own = packageFolder(fileURLToPath(import.meta.url));
  if (own !== undefined) packages.push(own);
  try {
    const sdk = packageFolder(createRequire(import.meta.url).resolve('@toolhost/plugin-sdk'));
    if (sdk !== undefined) packages.push(sdk);
  } catch {
    // Not resolvable from here (an unusual install): the host's own package is still protected.
  }
  return hostCodeFoldersOf(packages);
}

/**
 * The host-code folders for the host's and the SDK's package folders: each as found and as its
 * real path; the outermost `node_modules` folder on that real path (the project's, where npm
 * installs the host and its dependencies; in a pnpm store, `node_modules/.pnpm/…` holds every
 * package beside the host's); and every `node_modules` folder Node looks in from there (the
 * real path's ancestors'): in a checkout, npm workspaces or `npm link`, the host's package is in
 * no `node_modules` at all, and its dependencies are in the one of a folder above it.
 */
export function hostCodeFoldersOf(packages: readonly string[]): string[] {
  const folders = new Set<string>();
  const marker = `${path.sep}node_modules${path.sep}`;
  for (const folder of packages) {
    folders.add(folder);
    let real: string;
    try {
      real = realpathSync(folder);
    } catch {
      continue;
    }
    folders.add(real);
    const at = real.indexOf(marker);
    if (at >= 0) folders.add(real.slice(0, at + marker.length - 1));
    for (let dir = real; ; dir = path.dirname(dir)) {
      const modules = path.basename(dir) === 'node_modules' ? dir : path.join(dir, 'node_modules');
      if (isDirectorySync(modules)) folders.add(modules);
      if (path.dirname(dir) === dir) break;
    }
  }
  return [...folders];
}

/** The running host's code folders, found once at load. */
export const HOST_CODE = hostCodeFolders();
