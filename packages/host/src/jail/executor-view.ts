import { existsSync, realpathSync } from 'node:fs';
import * as path from 'node:path';
import { PACKAGE_ROOT } from '../util/package.js';
import { systemLibraries } from './bwrap.js';
import type { JailBind, JailSpec } from './types.js';

/** Size of the executor's private `/tmp`: it writes nothing there; a bound, not a need. */
const EXECUTOR_TMP_BYTES = 16 * 1024 * 1024;

/** Variables of the host's environment the executor keeps (nothing it needs; the zone for `Date`). */
const EXECUTOR_ENV_ALLOWED = ['TZ'] as const;

/**
 * Where Node looks for package `name` from `fromDir` (the first `node_modules/<name>` up the
 * tree), as a path, not resolved: the jail binds the package's real folder there.
 */
function lookupPath(fromDir: string, name: string): string | undefined {
  for (let dir = fromDir; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) return undefined;
  }
}

function bind(source: string, at: string = source): JailBind {
  return { source: realpathSync(source), path: at };
}

/** A package's folder, or only some of its files, bound at the path Node looks for it. */
function packageBinds(fromDir: string, name: string, parts?: readonly string[]): JailBind[] {
  const at = lookupPath(fromDir, name);
  if (at === undefined)
    throw new Error(`the executor's jail needs the package ${name}, which Node cannot find from ${fromDir}`);
  if (parts === undefined) return [bind(at)];
  return parts
    .filter((part) => existsSync(path.join(at, part)))
    .map((part) => bind(path.join(at, part), path.join(at, part)));
}

let cachedBase: readonly JailBind[] | undefined;

/**
 * What the executor process needs to run, and nothing else: the Node binary and the libraries it
 * links, this package's built code and `package.json` (which says its `.js` files are modules),
 * the SDK's built code (the executor imports its protocol constants), isolated-vm and the
 * `node-gyp-build` that finds its binary. Each is bound read-only at the path the host sees it at,
 * so module resolution inside the jail is the host's. Not the project, not `$HOME`, not `/etc`,
 * no shell, no bundler: the host builds the isolates' prelude and sends it.
 */
function baseView(): readonly JailBind[] {
  if (cachedBase !== undefined) return cachedBase;
  const host = realpathSync(PACKAGE_ROOT);
  const dist = path.join(host, 'dist');
  const ivmAt = lookupPath(dist, 'isolated-vm');
  const binds = [
    bind(process.execPath),
    ...systemLibraries(),
    bind(path.join(host, 'package.json')),
    bind(dist),
    ...packageBinds(dist, '@toolhost/plugin-sdk', ['package.json', 'dist']),
    ...packageBinds(dist, 'isolated-vm'),
    ...(ivmAt === undefined ? [] : packageBinds(realpathSync(ivmAt), 'node-gyp-build')),
  ];
  // A folder before what is bound inside it (bubblewrap mounts in order).
  cachedBase = [...new Map(binds.map((b) => [b.path, b])).values()].sort(
    (a, b) => a.path.length - b.path.length,
  );
  return cachedBase;
}

/** The executor's jail around `entry` (the built `executor-main.js`, or a test's own executor script). */
export function executorJail(
  entry: string,
  seccomp: boolean,
  env: NodeJS.ProcessEnv = process.env,
): JailSpec {
  const view = [...baseView()];
  const real = realpathSync(entry);
  if (!view.some((b) => real === b.source || real.startsWith(`${b.source}${path.sep}`)))
    view.push(bind(entry, real));
  const kept: Record<string, string> = {};
  for (const name of EXECUTOR_ENV_ALLOWED) {
    const value = env[name];
    if (value !== undefined) kept[name] = value;
  }
  return { readOnly: view, env: kept, tmpBytes: EXECUTOR_TMP_BYTES, seccomp };
}
