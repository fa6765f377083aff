import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

/** This file, as it runs: `src/util/package.ts` from sources, `dist/util/package.js` when built. */
const here = fileURLToPath(import.meta.url);

/** The `@toolhost/host` package folder (both `src/util` and `dist/util` are two levels down). */
export const PACKAGE_ROOT = path.resolve(path.dirname(here), '..', '..');

/**
 * The built file of an entry that runs in another thread or process (`sandbox/executor-main.js`),
 * given relative to `src/`: it always runs from `dist/`, even when the host runs from sources.
 */
export function builtEntry(relative: string): string {
  return path.join(PACKAGE_ROOT, 'dist', relative);
}
