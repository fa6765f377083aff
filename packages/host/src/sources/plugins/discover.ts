import { readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import * as path from 'node:path';
import { isFileSync } from '../../util/stat.js';

/** A folder under `plugins/` that has an entry. */
export interface DiscoveredPlugin {
  /** The folder name; the plugin's declared id must equal it. */
  readonly id: string;
  readonly dir: string;
  readonly entry: string;
}

/** A folder that looks like a plugin but cannot be used as one. */
export interface DiscoveryProblem {
  readonly id: string;
  readonly dir: string;
  readonly message: string;
}

const ENTRY_CANDIDATES = ['index.ts', 'index.mts', 'index.js', 'index.mjs'];

/** The entry of a plugin folder: `package.json` `main`, else `index.ts` / `index.js`. */
function findEntry(dir: string): { entry?: string; problem?: string } {
  const manifest = path.join(dir, 'package.json');
  if (isFileSync(manifest)) {
    let main: unknown;
    try {
      main = (JSON.parse(readFileSync(manifest, 'utf8')) as { main?: unknown }).main;
    } catch (error) {
      return { problem: `package.json is not valid JSON: ${(error as Error).message}` };
    }
    if (typeof main === 'string') {
      const entry = path.resolve(dir, main);
      if (path.relative(dir, entry).startsWith('..'))
        return { problem: `package.json main "${main}" leaves the plugin folder` };
      return isFileSync(entry) ? { entry } : { problem: `package.json main "${main}" does not exist` };
    }
  }
  for (const candidate of ENTRY_CANDIDATES) {
    const entry = path.join(dir, candidate);
    if (isFileSync(entry)) return { entry };
  }
  return {};
}

/** What a rediscovery already knows: `known` plugins keep their entry unless their id is in `only`. */
export interface KnownPlugins {
  readonly known: ReadonlyMap<string, DiscoveredPlugin>;
  readonly only: ReadonlySet<string>;
}

/**
 * Lists the plugins of a folder, sorted by id. Folders starting with `.` or `_` and
 * `node_modules` are skipped; a folder with no entry is not a plugin. With `since`, a save
 * costs one `readdir`: only new folders and those in `since.only` are looked into.
 */
export async function discoverPlugins(
  pluginsDir: string,
  since?: KnownPlugins,
): Promise<{ plugins: DiscoveredPlugin[]; problems: DiscoveryProblem[] }> {
  let names: string[];
  try {
    names = (await readdir(pluginsDir, { withFileTypes: true }))
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { plugins: [], problems: [] };
    throw error;
  }
  const plugins: DiscoveredPlugin[] = [];
  const problems: DiscoveryProblem[] = [];
  for (const id of names.sort()) {
    if (id.startsWith('.') || id.startsWith('_') || id === 'node_modules') continue;
    const known = since?.only.has(id) === false ? since.known.get(id) : undefined;
    if (known !== undefined) {
      plugins.push(known);
      continue;
    }
    const dir = path.join(pluginsDir, id);
    const found = findEntry(dir);
    if (found.problem !== undefined) problems.push({ id, dir, message: found.problem });
    else if (found.entry !== undefined) plugins.push({ id, dir, entry: found.entry });
  }
  return { plugins, problems };
}
