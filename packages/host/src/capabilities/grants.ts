/**
 * Declared permissions narrowed by config grants. Pure: no I/O, deterministic order.
 *
 * Declared permissions come out of the plugin's isolate, so every entry is checked on its own:
 * a malformed entry never takes effect (and is reported by {@link missingGrants}), and the rest
 * of the declaration still counts. Only own properties are read, so nothing inherited or named
 * `__proto__` can smuggle a value in.
 */

import type { PluginPermissions } from '@toolhost/plugin-sdk';
import { byCodeUnit } from '../util/compare.js';
import { normalizeFsRoot, rootContains } from './fs-roots.js';
import { type HostPattern, parseHostPattern, patternCovers } from './host-patterns.js';
import type { EffectivePermissions, MissingGrant, PluginGrants } from './types.js';

/** Entries read from one declared or granted list; more are ignored. */
const MAX_ENTRIES = 256;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,255}$/;

/** `obj[key]` when it is an own property of an object, else undefined. */
function own(obj: unknown, key: string): unknown {
  return typeof obj === 'object' && obj !== null && Object.hasOwn(obj, key)
    ? (obj as Record<string, unknown>)[key]
    : undefined;
}

function list(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value.slice(0, MAX_ENTRIES) : [];
}

function parsedList<T>(value: unknown, parse: (entry: unknown) => T | undefined): T[] {
  const out: T[] = [];
  for (const entry of list(value)) {
    const parsed = parse(entry);
    if (parsed !== undefined) out.push(parsed);
  }
  return out;
}

const envName = (value: unknown) => (typeof value === 'string' && ENV_NAME.test(value) ? value : undefined);

/** Sorted by code unit (locale-independent) without duplicates. */
function sortedUnique(values: Iterable<string>): string[] {
  return [...new Set(values)].sort(byCodeUnit);
}

/** A declared entry as written, parsed (undefined when invalid), and whether a grant covers it. */
interface Judged {
  readonly raw: unknown;
  readonly value: string | undefined;
  readonly granted: boolean;
}

function judgeNet(declared: unknown, granted: unknown): Judged[] {
  const grants = parsedList(granted, parseHostPattern);
  return list(declared).map((raw) => {
    const pattern = parseHostPattern(raw);
    const granted = pattern !== undefined && grants.some((grant) => patternCovers(grant, pattern));
    return { raw, value: pattern?.text, granted };
  });
}

function judgeRoots(declared: unknown, grants: readonly string[]): Judged[] {
  return list(declared).map((raw) => {
    const root = normalizeFsRoot(raw);
    const granted = root !== undefined && grants.some((grant) => rootContains(grant, root));
    return { raw, value: root, granted };
  });
}

function judgeEnv(declared: unknown, granted: unknown): Judged[] {
  const grants = new Set(parsedList(granted, envName));
  return list(declared).map((raw) => {
    const name = envName(raw);
    return { raw, value: name, granted: name !== undefined && grants.has(name) };
  });
}

/** Every list judged once; both exported functions read from here. */
function judgeAll(permissions: PluginPermissions, grants: PluginGrants) {
  const declaredFs = own(permissions, 'fs');
  const grantedFs = own(grants, 'fs');
  const readGrants = parsedList(own(grantedFs, 'read'), normalizeFsRoot);
  const writeGrants = parsedList(own(grantedFs, 'write'), normalizeFsRoot);
  // Writing implies reading, on both sides: a write grant counts as a read grant, and a declared
  // write root as a declared read root (reported as missing only under fs.write).
  const readOrWriteGrants = [...readGrants, ...writeGrants];
  return {
    net: judgeNet(own(permissions, 'net'), own(grants, 'net')),
    read: judgeRoots(own(declaredFs, 'read'), readOrWriteGrants),
    write: judgeRoots(own(declaredFs, 'write'), writeGrants),
    writeAsRead: judgeRoots(own(declaredFs, 'write'), readOrWriteGrants),
    env: judgeEnv(own(permissions, 'env'), own(grants, 'env')),
  };
}

const grantedValues = (judged: readonly Judged[]) =>
  judged.flatMap((entry) => (entry.granted && entry.value !== undefined ? [entry.value] : []));

/**
 * What a plugin may use: each declared entry that some grant covers (see `host-patterns.ts` and
 * `fs-roots.ts` for the rules). The effective value is the declared one, never the wider grant.
 * Writing implies reading: a root declared for write is readable when config grants it for read
 * or write; a root declared for read is readable when config grants it for either.
 */
export function effectivePermissions(
  permissions: PluginPermissions,
  grants: PluginGrants,
): EffectivePermissions {
  const judged = judgeAll(permissions, grants);
  const write = sortedUnique(grantedValues(judged.write));
  return {
    net: sortedUnique(grantedValues(judged.net)),
    fs: { read: sortedUnique([...grantedValues(judged.read), ...grantedValues(judged.writeAsRead)]), write },
    env: sortedUnique(grantedValues(judged.env)),
  };
}

/** How a declared entry is written in messages: its own text, or what kind of value it was. */
function describeDeclared(raw: unknown): string {
  return typeof raw === 'string'
    ? JSON.stringify(raw.slice(0, 200))
    : `(a ${raw === null ? 'null' : typeof raw})`;
}

/**
 * Declared entries that do not take effect, in declaration order (net, fs.read, fs.write, env):
 * `not-granted` ones config can fix at `configKey`; `invalid` ones the plugin must fix.
 * `pluginId` fills in the config key; without it the key reads `plugins.<id>.grants…`.
 */
export function missingGrants(
  permissions: PluginPermissions,
  grants: PluginGrants,
  pluginId = '<id>',
): MissingGrant[] {
  const judged = judgeAll(permissions, grants);
  const keys = {
    net: ['permissions.net', 'net'],
    read: ['permissions.fs.read', 'fs.read'],
    write: ['permissions.fs.write', 'fs.write'],
    env: ['permissions.env', 'env'],
  } as const satisfies Record<Exclude<keyof typeof judged, 'writeAsRead'>, readonly [string, string]>;
  const missing: MissingGrant[] = [];
  for (const kind of ['net', 'read', 'write', 'env'] as const) {
    const [permission, grantKey] = keys[kind];
    for (const entry of judged[kind]) {
      if (entry.granted) continue;
      missing.push({
        permission: `${permission} ${describeDeclared(entry.raw)}`,
        configKey: `plugins.${pluginId}.grants.${grantKey}`,
        reason: entry.value === undefined ? 'invalid' : 'not-granted',
      });
    }
  }
  return missing;
}

/** The valid declared host patterns, for telling "not declared" from "declared, not granted". */
export function declaredHostPatterns(permissions: PluginPermissions): HostPattern[] {
  return parsedList(own(permissions, 'net'), parseHostPattern);
}

/** The valid granted host patterns (`plugins.<id>.grants.net`), whatever the plugin declares. */
export function grantedHostPatterns(grants: PluginGrants): HostPattern[] {
  return parsedList(own(grants, 'net'), parseHostPattern);
}

/** The valid declared fs roots of one kind, normalized. */
export function declaredRoots(permissions: PluginPermissions, kind: 'read' | 'write'): string[] {
  return parsedList(own(own(permissions, 'fs'), kind), normalizeFsRoot);
}
