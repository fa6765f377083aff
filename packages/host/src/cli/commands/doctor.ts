import * as path from 'node:path';
import type { HiddenReason } from '@toolhost/plugin-sdk';
import { missingGrants } from '../../capabilities/grants.js';
import type { MissingGrant } from '../../capabilities/types.js';
import { formatConfigIssues } from '../../config/load.js';
import type { ToolhostConfig } from '../../config/schema.js';
import type { ToolHost } from '../../host/host.js';
import { describeControlAccess } from '../../sources/builtin/index.js';
import type { PluginReport } from '../../sources/plugins/manager.js';
import { COMMON_OPTIONS, parseCommand } from '../args.js';
import { type Io, type Style, styleFor } from '../io.js';
import { openHost, resolveProject } from '../project.js';
import { EXIT } from '../types.js';
import { shownPath } from '../view.js';

type Level = 'ok' | 'info' | 'warning' | 'problem';

interface Finding {
  readonly level: Level;
  readonly subject: string;
  readonly message: string;
  /** What to do about it. */
  readonly fix?: string;
  readonly details?: readonly string[];
}

const MARKS = { ok: '✔', info: '–', warning: '⚠', problem: '✖' } as const satisfies Record<Level, string>;

function render(finding: Finding, style: Style): string[] {
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
function addAt(tree: Record<string, unknown>, key: string, value: unknown): void {
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
  node[last] = [...(Array.isArray(list) ? list : []), value];
}

/** Declared permissions of one plugin that config does not grant (or that are invalid). */
function grantFindings(
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
        fix: `add ${value === undefined ? 'it' : JSON.stringify(value)} to ${missing.configKey} in ${configName}`,
      });
    }
  }
  return findings;
}

function statusFinding(report: PluginReport): Finding {
  const subject = `plugin ${report.id}`;
  switch (report.status) {
    case 'loaded': {
      const tools = report.manifest?.tools.length ?? 0;
      return { level: 'ok', subject, message: `builds and loads (${tools} tool${tools === 1 ? '' : 's'})` };
    }
    case 'disabled':
      return { level: 'info', subject, message: report.diagnostics.join('; ') || 'disabled in config' };
    case 'failed':
      return {
        level: 'problem',
        subject,
        message: 'does not load',
        details: report.diagnostics,
        fix: `correct plugins/${report.id}/ (its tools stay hidden until it loads)`,
      };
    case 'quarantined':
      return {
        level: 'problem',
        subject,
        message: 'is quarantined after crashing the executor process; its tools are hidden',
        details: report.diagnostics,
        fix:
          `find what makes it crash (memory, deep recursion), then edit plugins/${report.id}/ or ` +
          `plugins.${report.id}.limits: the changed plugin is tried again. To try it unchanged, ` +
          'reload the running host or delete .toolhost/quarantine.json',
      };
  }
}

/** Each plugin's status followed by its missing grants; then settings that name no plugin. */
function pluginFindings(host: ToolHost, configName: string, suggestion: Record<string, unknown>): Finding[] {
  const findings = host.plugins.flatMap((report) => [
    statusFinding(report),
    ...grantFindings(host, report, configName, suggestion),
  ]);
  if (host.plugins.length === 0) {
    findings.push({
      level: 'info',
      subject: 'plugins',
      message: `none in ${path.join(host.root, 'plugins')}`,
    });
  }
  const ids = new Set(host.plugins.map((p) => p.id));
  for (const id of Object.keys(host.config.plugins ?? {})) {
    if (!ids.has(id)) {
      findings.push({
        level: 'warning',
        subject: `plugins.${id}`,
        message: `config has settings for "${id}" but plugins/${id}/ does not exist`,
        fix: 'correct the id (it is the plugin folder name) or remove the settings',
      });
    }
  }
  return findings;
}

/**
 * Whether a hidden reason is already explained by another finding (the plugin's status, a
 * registry diagnostic); a tool hidden only for such reasons is not listed again.
 */
const EXPLAINED_ELSEWHERE = {
  'auth-missing': false,
  'config-missing': false,
  'context-mismatch': false,
  'env-missing': false,
  'invalid-name': true,
  'mcp-unavailable': false,
  overridden: true,
  'plugin-disabled': true,
  'plugin-load-failed': true,
  'policy-denied': true,
  quarantined: true,
  'unsupported-signal': false,
} as const satisfies Record<HiddenReason, boolean>;

/** Hidden tools not already explained by a plugin finding, and the registry's own diagnostics. */
function toolFindings(host: ToolHost): Finding[] {
  const findings: Finding[] = [];
  for (const entry of host.plan().hidden) {
    const reasons = entry.diagnostics.filter((d) => !EXPLAINED_ELSEWHERE[d.reason]);
    if (reasons.length === 0) continue;
    findings.push({
      level: 'warning',
      subject: `tool ${entry.descriptor.name}`,
      message: `is hidden: ${reasons.map((d) => `${d.reason}: ${d.message}`).join('; ')}`,
    });
  }
  for (const diagnostic of host.registry.diagnostics) {
    if (diagnostic.level === 'info') continue;
    findings.push({
      level: diagnostic.level === 'error' ? 'problem' : 'warning',
      subject: diagnostic.toolName === undefined ? 'registry' : `tool ${diagnostic.toolName}`,
      message: diagnostic.message,
    });
  }
  return findings;
}

/** What the built-in tools may do with the host's control files (config, plugins/, .toolhost/). */
function controlFilesFinding(config: ToolhostConfig): Finding {
  const builtins = config.builtins;
  const subject = 'control files';
  if (builtins === false || (typeof builtins === 'object' && builtins.enabled === false)) {
    return { level: 'info', subject, message: 'built-in tools are off' };
  }
  const { level, message } = describeControlAccess(
    typeof builtins === 'object' ? builtins.controlFiles : undefined,
  );
  return level === 'warning'
    ? { level, subject, message, fix: 'remove builtins.controlFiles unless an agent must author these files' }
    : { level, subject, message };
}

function mcpFindings(host: ToolHost): Finding[] {
  const names = Object.keys(host.config.mcpServers ?? {});
  const statuses = new Map(host.mcpServers.map((s) => [s.name, s]));
  return names.map((name): Finding => {
    const status = statuses.get(name);
    const subject = `mcp server ${name}`;
    if (status?.state === 'connected')
      return { level: 'ok', subject, message: `connected (${status.tools} tools)` };
    return {
      level: 'problem',
      subject,
      message:
        status === undefined ? 'not started' : `${status.state}${status.reason ? `: ${status.reason}` : ''}`,
      fix: `check mcpServers.${name} (command or url) and that the server starts on its own`,
    };
  });
}

export async function doctor(argv: readonly string[], io: Io): Promise<number> {
  const { values } = parseCommand('doctor', argv, COMMON_OPTIONS);
  const project = await resolveProject(values);
  const style = styleFor(io.out);
  const configName = shownPath(project.configFile);
  const findings: Finding[] = [];
  const print = () => {
    for (const finding of findings) io.out.write(`${render(finding, style).join('\n')}\n`);
  };
  if (!project.config.ok) {
    findings.push({
      level: 'problem',
      subject: 'config',
      message: `${configName} is not valid`,
      details: formatConfigIssues(project.config.issues)
        .split('\n')
        .map((line) => line.trim()),
      fix: 'correct each key listed; the JSON Schema is node_modules/@toolhost/host/toolhost.config.schema.json',
    });
    print();
    io.out.write(`\n${style.red('1 problem')}: the host cannot start until the config is valid.\n`);
    return EXIT.failed;
  }
  findings.push({
    level: 'ok',
    subject: 'config',
    message: project.config.found ? `${configName} is valid` : `no ${configName}; using the defaults`,
  });
  // No cache: doctor builds every plugin for real.
  const host = await openHost(project, io, { cache: false });
  const suggestion: Record<string, unknown> = {};
  try {
    findings.push(
      controlFilesFinding(host.config),
      ...pluginFindings(host, configName, suggestion),
      ...toolFindings(host),
      ...mcpFindings(host),
    );
  } finally {
    await host.close();
  }
  print();
  const problems = findings.filter((f) => f.level === 'problem').length;
  const warnings = findings.filter((f) => f.level === 'warning').length;
  if (Object.keys(suggestion).length > 0) {
    io.out.write(
      `\nGrants to add to ${configName} (merge with what is there):\n${JSON.stringify(suggestion, null, 2)}\n`,
    );
  }
  const warned = warnings === 0 ? '' : `, ${warnings} warning${warnings === 1 ? '' : 's'}`;
  io.out.write(
    problems === 0
      ? `\n${style.green('All is well')}${warned}.\n`
      : `\n${style.red(`${problems} problem${problems === 1 ? '' : 's'}`)}${warned}.\n`,
  );
  return problems === 0 ? EXIT.ok : EXIT.failed;
}
