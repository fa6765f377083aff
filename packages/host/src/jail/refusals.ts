import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

/**
 * What a jail refused a process tool, in words a person (and a model) can act on: which path or
 * host, and the config key whose grant would allow it. Kept per tool in
 * `<root>/.toolhost/jail-refusals.json` (the last {@link KEPT} each), so `toolhost doctor` and
 * `toolhost grant` of another process can show and grant them.
 */
export interface JailRefusal {
  /** `exec`, or `mcp:<server>`. */
  readonly tool: string;
  readonly kind: 'net' | 'read' | 'write';
  /** The host:port or path refused (a path as the process named it). */
  readonly what: string;
  readonly why: string;
  /** The config key a grant goes into (`builtins.exec.sandbox.net`), or undefined when none may open it. */
  readonly key: string | undefined;
  /** The value to add under `key`. */
  readonly grant: string | undefined;
  /** When it happened, ms since the epoch. */
  readonly at: number;
}

/** Refusals kept per tool. */
const KEPT = 20;
const FILE = 'jail-refusals.json';

/** The sentence for one refusal, naming the key. */
export function refusalText(refusal: Omit<JailRefusal, 'tool' | 'at'>): string {
  const verb = refusal.kind === 'net' ? 'a connection to' : refusal.kind === 'read' ? 'reading' : 'writing';
  const fix =
    refusal.key === undefined
      ? ''
      : `; add ${JSON.stringify(refusal.grant ?? refusal.what)} to ${refusal.key} to allow it`;
  return `the jail refused ${verb} ${refusal.what} (${refusal.why})${fix}`;
}

/** The refusals recorded under `root`, newest last; none when the file is missing or unreadable. */
export function readRefusals(root: string): JailRefusal[] {
  try {
    const value: unknown = JSON.parse(readFileSync(path.join(root, '.toolhost', FILE), 'utf8'));
    return Array.isArray(value) ? (value.filter(isRefusal) as JailRefusal[]) : [];
  } catch {
    return [];
  }
}

function isRefusal(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Record<string, unknown>;
  return typeof r.tool === 'string' && typeof r.what === 'string' && typeof r.kind === 'string';
}

/**
 * Adds refusals to the record under `root` (written whole, through a rename, so a reader never
 * sees half a file); a refusal already recorded for the same tool and subject moves to the end.
 * Failing to write loses only the record.
 */
export function recordRefusals(root: string, refusals: readonly JailRefusal[]): void {
  if (refusals.length === 0) return;
  try {
    const all = readRefusals(root);
    for (const refusal of refusals) {
      const same = all.findIndex(
        (r) => r.tool === refusal.tool && r.kind === refusal.kind && r.what === refusal.what,
      );
      if (same >= 0) all.splice(same, 1);
      all.push(refusal);
    }
    const kept: JailRefusal[] = [];
    const counts = new Map<string, number>();
    for (const refusal of [...all].reverse()) {
      const count = counts.get(refusal.tool) ?? 0;
      if (count >= KEPT) continue;
      counts.set(refusal.tool, count + 1);
      kept.unshift(refusal);
    }
    const dir = path.join(root, '.toolhost');
    mkdirSync(dir, { recursive: true });
    const temp = path.join(dir, `${FILE}.${process.pid}.tmp`);
    writeFileSync(temp, `${JSON.stringify(kept, null, 2)}\n`);
    renameSync(temp, path.join(dir, FILE));
  } catch {
    // The record is a convenience; the refusal itself was already said where it happened.
  }
}

const FS_ERROR =
  /(EROFS|read-only file system|EACCES|permission denied|EPERM|operation not permitted|ENOENT|no such file or directory|cannot find module|MODULE_NOT_FOUND)/i;
/** An absolute path anywhere in the line. */
const ABSOLUTE_PATH = /(?:^|['"`\s(])(\/[^\s'"`:,)]+)/g;
/** The word right before the error (`cannot create plugins/a.js: Read-only file system`). */
const PATH_BEFORE_ERROR =
  /([^\s'"`:]+)['"`]?:\s*(?:EROFS|read-only file system|EACCES|permission denied|EPERM|operation not permitted|ENOENT|no such file or directory)/gi;

/**
 * Paths a process said it could not read or write, from its stderr: each line naming a
 * file-system error gives the absolute paths it holds and the word right before the error (a
 * relative path, resolved by the caller against the working directory); a read-only file system
 * means a write. The rest is judged by the caller, which knows the view.
 */
export function fsErrorsIn(stderr: string): { readonly path: string; readonly readOnly: boolean }[] {
  const found = new Map<string, boolean>();
  for (const line of stderr.split('\n').slice(0, 200)) {
    const error = FS_ERROR.exec(line);
    if (error === null) continue;
    const readOnly = /EROFS|read-only/i.test(error[1] ?? '');
    const paths = [
      ...[...line.matchAll(ABSOLUTE_PATH)].map((m) => m[1] as string),
      ...[...line.matchAll(PATH_BEFORE_ERROR)].map((m) => m[1] as string),
    ];
    for (const file of paths) {
      if (file.length > 1 && !found.has(file) && (file.includes('/') || file.includes('.')))
        found.set(file, readOnly);
    }
  }
  return [...found].map(([file, readOnly]) => ({ path: file, readOnly }));
}
