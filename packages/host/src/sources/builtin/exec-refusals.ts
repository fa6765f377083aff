import { realpathSync } from 'node:fs';
import * as path from 'node:path';
import { fsErrorsIn, type JailRefusal } from '../../jail/refusals.js';
import { grantPath, isInside } from '../../util/paths.js';
import type { ControlKind, JailControlPath } from '../../workspace/control.js';

/** What a program prints when it finds no network (its jail has none): resolvers, connects. */
export const NO_NETWORK =
  /ENETUNREACH|ECONNREFUSED|connection refused|network is unreachable|EAI_AGAIN|ENOTFOUND|could not resolve|temporary failure in name resolution|name or service not known|getaddrinfo/i;

/** Why a control path is read-only in exec's jail, and the key that opens it (none for some). */
const CONTROL_WHY = {
  config:
    'the host config file: hidden from exec and read-only unless builtins.controlFiles.config is "read" or "write"',
  plugins: 'the plugins folder: read-only for exec unless builtins.controlFiles.plugins is "write"',
  skills: 'the skills folder: read-only for exec unless builtins.controlFiles.skills is "write"',
  cache: "the host's .toolhost/ folder: read-only for exec, always",
  host: "the host's own code: read-only for exec, always",
  secret: "the HTTP endpoint's bearer tokens (.toolhost/serve-tokens.json): hidden from exec, always",
} as const satisfies Record<ControlKind, string>;

/**
 * The writes exec's jail refused, read from the program's stderr (a read-only file system at a
 * path it names): a control path, which no grant opens to exec (the built-in tools' key is named
 * where there is one), or a path outside the workspace, which `builtins.exec.sandbox.fs.write`
 * opens.
 */
export function execFsRefusals(
  stderr: string,
  root: string,
  cwd: string,
  control: readonly JailControlPath[],
): Omit<JailRefusal, 'tool' | 'at'>[] {
  const refusals: Omit<JailRefusal, 'tool' | 'at'>[] = [];
  for (const error of fsErrorsIn(stderr)) {
    const target = realTarget(path.resolve(cwd, error.path));
    const held = control.find(
      (entry) =>
        !entry.writable && (entry.folder ? isInside(entry.absolute, target) : entry.absolute === target),
    );
    if (held !== undefined) {
      refusals.push({
        kind: 'write',
        what: error.path,
        why: CONTROL_WHY[held.kind],
        key: undefined,
        grant: undefined,
      });
    } else if (error.readOnly && !isInside(root, target)) {
      refusals.push({
        kind: 'write',
        what: path.isAbsolute(error.path) ? grantPath(target, root) : error.path,
        why: 'outside the workspace, which is all exec may write',
        key: 'builtins.exec.sandbox.fs.write',
        grant: grantPath(path.dirname(target), root),
      });
    }
  }
  return refusals;
}

/** The path with its existing part resolved (a symlink into plugins/ is plugins/). */
function realTarget(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    const parent = path.dirname(file);
    return parent === file ? file : path.join(realTarget(parent), path.basename(file));
  }
}
