import { realpathSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

/** This package's bin (`packages/host/bin/toolhost.js`), from this file in dist/cli/ or src/cli/. */
export const BIN = fileURLToPath(new URL('../../bin/toolhost.js', import.meta.url));

function real(file: string): string | undefined {
  try {
    return realpathSync(file);
  } catch {
    return undefined;
  }
}

/**
 * How to run this toolhost from `cwd`, for the commands the CLI prints: `npx toolhost` when npx
 * would find this very bin there (a `node_modules/.bin/toolhost` in `cwd` or a folder above it),
 * else this Node and this bin by absolute path — never a bare `npx toolhost` that would look the
 * name up in the registry.
 */
export function toolhostCommand(cwd: string = process.cwd()): string {
  const bin = real(BIN);
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    const linked = real(path.join(dir, 'node_modules', '.bin', 'toolhost'));
    if (linked !== undefined) {
      if (linked === bin) return 'npx toolhost';
      break;
    }
    if (path.dirname(dir) === dir) break;
  }
  return `${shellWord(process.execPath)} ${shellWord(bin ?? BIN)}`;
}

/** `word` as one POSIX shell word: as is when it is safe, else single-quoted. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_/.:=@%+,-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
