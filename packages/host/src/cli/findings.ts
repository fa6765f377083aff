/**
 * What is wrong or worth knowing about a running host's project, as findings: `doctor` prints them
 * all, `list` and `dev` print the warnings and problems beside the plan, `grant` writes the grants
 * they suggest. One implementation, so the commands never disagree.
 */
import * as path from 'node:path';
import type { HiddenReason, ToolDiagnostic } from '@toolhost/plugin-sdk';
import { normalizeFsRoot, rootContains } from '../capabilities/fs-roots.js';
import { missingGrants } from '../capabilities/grants.js';
import type { MissingGrant } from '../capabilities/types.js';
import { CODE_MODE_CONTEXT_KEY } from '../core/register/code-mode.js';
import type { ToolHost } from '../host/host.js';
import { internalsOf } from '../host/internals.js';
import { shapeOf, unknownKeys } from '../sources/plugins/config-help.js';
import type { PluginReport } from '../sources/plugins/types.js';
import { shellWord, toolhostCommand } from './invocation.js';
import type { Style } from './io.js';
import { shownPath } from './view.js';

export type Level = 'ok' | 'info' | 'warning' | 'problem';

export interface Finding {
  readonly level: Level;
  readonly subject: string;
  readonly message: string;
  /** What to do about it. */
  readonly fix?: string;
  readonly details?: readonly string[];
}

const MARKS = { ok: '✔', info: '–', warning: '⚠', problem: '✖' } as const satisfies Record<Level, string>;

export function render(finding: Finding, style: Style): string[] {
  const paint = { ok: style.green, info: style.dim, warning: style.yellow, problem: style.red }[
    finding.level
  ];
  return [
    `${paint(MARKS[finding.level])} ${style.bold(finding.subject)}: ${finding.message}`,
    ...(finding.details ?? []).map((line) => `    ${line}`),
    ...(finding.fix === undefined ? [] : [`    ${style.cyan('fix:')} ${finding.fix}`]),
  ];
}

/** The declared value of `permissions.fs.read "notes"` (`notes`), to suggest the grant to add. */
function grantValue(missing: MissingGrant): unknown {
  const quoted = /^\S+ (".*")$/.exec(missing.permission)?.[1];
  return quoted === undefined ? undefined : JSON.parse(quoted);
}

/** Adds `value` to the list at the dotted `key` of a JSON tree, creating what is missing. */
export function addAt(tree: Record<string, unknown>, key: string, value: unknown): void {
  const parts = key.split('.');
  const last = parts.pop() ?? '';
  let node = tree;
  for (const part of parts) {
    const next = node[part];
    const child = typeof next === 'object' && next !== null ? (next as Record<string, unknown>) : {};
    node[part] = child;
    node = child;
  }
  const list = node[last];
  if (Array.isArray(list) && list.some((item) => JSON.stringify(item) === JSON.stringify(value))) return;
  node[last] = [...(Array.isArray(list) ? list : []), value];
}

/**
 * Declared permissions of one plugin that config does not grant (or that are invalid). Each grant
 * that would fix one is added to `suggestion` at its config key (`plugins.<id>.grants.…`).
 */
export function grantFindings(
  host: ToolHost,
  report: PluginReport,
  configName: string,
  suggestion: Record<string, unknown>,
): Finding[] {
  const findings: Finding[] = [];
  if (report.manifest !== undefined && report.status !== 'disabled') {
    const grants = host.config.plugins?.[report.id]?.grants ?? {};
    for (const missing of missingGrants(report.manifest.permissions, grants, report.id)) {
      if (missing.reason === 'invalid') {
        findings.push({
          level: 'problem',
          subject: `plugin ${report.id}`,
          message: `declares ${missing.permission}, which is not a valid value`,
          fix: `correct permissions in plugins/${report.id}/ (no grant can make it valid)`,
        });
        continue;
      }
      const value = grantValue(missing);
      if (value !== undefined) addAt(suggestion, missing.configKey, value);
      findings.push({
        level: 'problem',
        subject: `plugin ${report.id}`,
        message: `asks for ${missing.permission}, which config does not grant`,
        fix:
          `add ${value === undefined ? 'it' : JSON.stringify(value)} to ${missing.configKey} in ${configName}` +
          (value === undefined
            ? ''
            : ` (or run ${projectCommand(host, `grant ${shellWord(report.id)}`, configName)})`),
      });
    }
  }
  return findings;
}

/** `toolhost <args>` on `host`'s project and its config `configName`, runnable from the cwd as printed. */
export function projectCommand(host: ToolHost, args: string, configName: string): string {
  const root = host.root === process.cwd() ? '' : ` --root ${shellWord(shownPath(host.root))}`;
  const usual = shownPath(path.join(host.root, 'toolhost.config.json'));
  const config = configName === usual ? '' : ` --config ${shellWord(configName)}`;
  return `${toolhostCommand()} ${args}${root}${config}`;
}

/**
 * fs grants that cover a host control path (`fs.write: ["."]`, `["plugins"]`, a folder holding the
 * config): `ctx.fs` refuses those paths whatever the grant, so the grant is wider than what the
 * plugin gets, and broader than it should be. Writes are refused on the config file, plugins/,
 * skills/ and .toolhost/; reads on the config file and .toolhost/.
 */
export function controlGrantFindings(host: ToolHost, configFile: string): Finding[] {
  const inRoot = (file: string) => {
    const relative = path.relative(host.root, file).split(path.sep).join('/');
    return relative === '' || relative.startsWith('..') || path.isAbsolute(relative) ? [] : [relative];
  };
  const configs = [...new Set(['toolhost.config.json', ...inRoot(configFile)])];
  const closed = {
    write: [...configs, 'plugins/', 'skills/', '.toolhost/'],
    read: [...configs, '.toolhost/'],
  } as const;
  const findings: Finding[] = [];
  for (const [id, settings] of Object.entries(host.config.plugins ?? {})) {
    for (const access of ['write', 'read'] as const) {
      for (const granted of settings?.grants?.fs?.[access] ?? []) {
        const folder = normalizeFsRoot(granted)?.toLowerCase();
        if (folder === undefined) continue;
        const covered = closed[access].filter((control) => {
          const name = control.replace(/\/$/, '').toLowerCase();
          return rootContains(folder, name) || rootContains(name, folder);
        });
        if (covered.length === 0) continue;
        findings.push({
          level: 'warning',
          subject: `plugins.${id}.grants.fs.${access}`,
          message:
            `${JSON.stringify(granted)} covers host control files (${covered.join(', ')}); ` +
            `ctx.fs refuses to ${access === 'write' ? 'change' : 'read'} them whatever the grant`,
          fix: 'grant the folder that holds the plugin\'s data (say "data"), not one holding the host\'s control files',
        });
      }
    }
  }
  return findings;
}

/** Keys of a loaded plugin's `plugins.<id>.config` that its schema does not know (zod drops them). */
export function configKeyFindings(host: ToolHost): Finding[] {
  return host.plugins.flatMap((report): Finding[] => {
    if (report.status !== 'loaded' || report.manifest?.configSchema === undefined) return [];
    const unknown = unknownKeys(report.manifest.configSchema, host.config.plugins?.[report.id]?.config);
    if (unknown.length === 0) return [];
    return [
      {
        level: 'warning',
        subject: `plugins.${report.id}.config`,
        message: `unknown key${unknown.length === 1 ? '' : 's'} ${unknown.join(', ')}, ignored by the plugin`,
        fix: `write the config as ${shapeOf(report.manifest.configSchema)}`,
      },
    ];
  });
}

/** Settings under `plugins.<id>` for a plugin folder that does not exist. */
export function unknownPluginFindings(host: ToolHost): Finding[] {
  const ids = new Set(host.plugins.map((p) => p.id));
  return Object.keys(host.config.plugins ?? {})
    .filter((id) => !ids.has(id))
    .map((id) => ({
      level: 'warning',
      subject: `plugins.${id}`,
      message: `config has settings for "${id}" but plugins/${id}/ does not exist`,
      fix: 'correct the id (it is the plugin folder name) or remove the settings',
    }));
}

/**
 * Whether a hidden reason is already explained by another finding (the plugin's status, a
 * registry diagnostic); a tool hidden only for such reasons is not listed again.
 */
const EXPLAINED_ELSEWHERE = {
  'auth-missing': false,
  'bin-missing': false,
  'config-missing': false,
  'context-mismatch': false,
  'env-missing': false,
  'invalid-name': true,
  'mcp-unavailable': false,
  'os-mismatch': false,
  overridden: true,
  'override-refused': true,
  'owner-only': false,
  'plugin-disabled': true,
  'plugin-load-failed': true,
  'policy-denied': true,
  quarantined: true,
  'skill-invalid': false,
  'unsupported-signal': false,
} as const satisfies Record<HiddenReason, boolean>;

/** Code mode's tools hidden because code mode is off: the plan says so, and it is the default. */
function isCodeModeOff(diagnostic: ToolDiagnostic): boolean {
  return diagnostic.signal?.kind === 'context' && diagnostic.signal.key === CODE_MODE_CONTEXT_KEY;
}

/** Hidden tools not already explained by a plugin finding. */
export function hiddenToolFindings(host: ToolHost): Finding[] {
  const findings: Finding[] = [];
  for (const entry of host.plan().hidden) {
    const reasons = entry.diagnostics.filter((d) => !EXPLAINED_ELSEWHERE[d.reason] && !isCodeModeOff(d));
    if (reasons.length === 0) continue;
    findings.push({
      level: 'warning',
      subject: `tool ${entry.descriptor.name}`,
      message: `is hidden: ${reasons.map((d) => `${d.reason}: ${d.message}`).join('; ')}`,
    });
  }
  return findings;
}

/** The registry's own warnings and errors: overrides, allow/deny patterns that match nothing. */
export function registryFindings(host: ToolHost): Finding[] {
  return internalsOf(host)
    .registry.diagnostics.filter((diagnostic) => diagnostic.level !== 'info')
    .map((diagnostic) => ({
      level: diagnostic.level === 'error' ? 'problem' : 'warning',
      subject: diagnostic.toolName === undefined ? 'registry' : `tool ${diagnostic.toolName}`,
      message: diagnostic.message,
    }));
}

/**
 * What `list` and `dev` show beside the plan (which already lists hidden tools and failed
 * plugins): missing grants, settings for no plugin, the registry's warnings.
 */
export function planWarnings(host: ToolHost, configName: string): Finding[] {
  const suggestion: Record<string, unknown> = {};
  return [
    ...host.plugins.flatMap((report) => grantFindings(host, report, configName, suggestion)),
    ...configKeyFindings(host),
    ...unknownPluginFindings(host),
    ...registryFindings(host),
  ];
}

/** {@link planWarnings} as lines under a heading; none when there is nothing to say. */
export function warningLines(findings: readonly Finding[], style: Style): string[] {
  if (findings.length === 0) return [];
  return [
    '',
    style.bold(`Warnings (${findings.length})`),
    ...findings.flatMap((finding) => render(finding, style).map((line) => `  ${line}`)),
  ];
}
