/**
 * A skill's requirements (`requires.env`, `requires.bins`, `requires.config`, `os`) checked
 * against the host. Each one missing is a diagnostic saying exactly what is missing and how to
 * supply it; the skill is hidden until every one holds.
 */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import * as path from 'node:path';
import type { ToolDiagnostic } from '@toolhost/plugin-sdk';

/** What requirements are checked against. */
export interface RequirementFacts {
  /** The environment the host's availability checks see (`signals.env`, or `availability.env`). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The toolhost config in force. */
  readonly config: unknown;
  readonly platform: string;
  /** The PATH programs are looked up on, and on Windows PATHEXT. */
  readonly path: string;
  readonly pathExt?: string;
}

export interface Requirements {
  readonly env: readonly string[];
  readonly bins: readonly string[];
  readonly config: readonly string[];
  readonly os?: readonly string[];
}

/**
 * Whether a config value counts as present: it exists and is not `null`, `false` or a blank
 * string (so `"token": ""` placeholders and switched-off flags do not satisfy a requirement).
 */
export function isPresentConfigValue(value: unknown): boolean {
  if (value === undefined || value === null || value === false) return false;
  return typeof value !== 'string' || value.trim() !== '';
}

/** The value at a dotted path, own properties only (never `__proto__` or inherited ones). */
export function configValueAt(config: unknown, dotted: string): unknown {
  let node: unknown = config;
  for (const key of dotted.split('.')) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

async function isExecutableFile(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

/** Whether program `bin` is an executable file in one of PATH's folders (no shell involved). */
export async function isOnPath(
  bin: string,
  facts: Pick<RequirementFacts, 'path' | 'pathExt' | 'platform'>,
): Promise<boolean> {
  const dirs = facts.path.split(path.delimiter).filter((dir) => dir !== '' && path.isAbsolute(dir));
  const exts =
    facts.platform === 'win32'
      ? ['', ...(facts.pathExt ?? '.COM;.EXE;.BAT;.CMD').split(';').filter(Boolean)]
      : [''];
  for (const dir of dirs) {
    for (const ext of exts) if (await isExecutableFile(path.join(dir, bin + ext))) return true;
  }
  return false;
}

/** Every requirement of `requires` that does not hold, each as a diagnostic. */
export async function checkRequirements(
  requires: Requirements,
  facts: RequirementFacts,
  configFile: string,
): Promise<ToolDiagnostic[]> {
  const missing: ToolDiagnostic[] = [];
  if (requires.os !== undefined && !requires.os.includes(facts.platform)) {
    missing.push({
      reason: 'os-mismatch',
      message: `runs only on ${requires.os.join(', ')}; this host runs on ${facts.platform}`,
    });
  }
  for (const name of requires.env) {
    if ((facts.env[name] ?? '').trim() === '') {
      missing.push({
        reason: 'env-missing',
        message: `needs the environment variable ${name}: set it where the host starts (it is unset or blank)`,
      });
    }
  }
  for (const key of requires.config) {
    if (!isPresentConfigValue(configValueAt(facts.config, key))) {
      missing.push({
        reason: 'config-missing',
        message: `needs config key "${key}" in ${configFile}: set it to a value that is not empty, null or false`,
      });
    }
  }
  for (const bin of requires.bins) {
    if (!(await isOnPath(bin, facts))) {
      missing.push({
        reason: 'bin-missing',
        message: `needs the program "${bin}" on PATH: install it, or add its folder to the PATH the host starts with`,
      });
    }
  }
  return missing;
}
