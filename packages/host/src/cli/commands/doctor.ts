import { availableParallelism } from 'node:os';
import * as path from 'node:path';
import type { ToolExecutorRef } from '@toolhost/plugin-sdk';
import { formatConfigIssues } from '../../config/load.js';
import { sandboxObject, sandboxSettingOf } from '../../config/sandbox.js';
import type { ToolhostConfig } from '../../config/schema.js';
import type { ToolHost } from '../../host/host.js';
import type { IsolateStats } from '../../sandbox/types.js';
import { describeControlAccess } from '../../sources/builtin/index.js';
import type { PluginReport } from '../../sources/plugins/types.js';
import { DEFAULT_POLL_MICROS } from '../../util/hot-loop.js';
import { parseCommand } from '../args.js';
import {
  configKeyFindings,
  controlGrantFindings,
  type Finding,
  grantFindings,
  hiddenToolFindings,
  registryFindings,
  render,
  unknownPluginFindings,
} from '../findings.js';
import { FLAGS } from '../flags.js';
import { type Io, styleFor } from '../io.js';
import { openHost, resolveProject } from '../project.js';
import { toolJailFindings } from '../tool-jails.js';
import { EXIT } from '../types.js';
import { listedIsolates, shownPath } from '../view.js';
import { wallsLine } from '../walls.js';

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
    case 'loading':
      return { level: 'info', subject, message: report.diagnostics.join('; ') };
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
  findings.push(...configKeyFindings(host), ...unknownPluginFindings(host));
  return findings;
}

/** What the built-in tools may do with the host's control files (config, plugins/, skills/, .toolhost/). */
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

/**
 * How many visible tools each executor kind has. Channel tools exist only in a channel's sessions
 * (`host.session({channel})`), so the host's own plan never has any: the count says so.
 */
function toolKindsFinding(host: ToolHost): Finding {
  const counts: Record<ToolExecutorRef['kind'], number> = { core: 0, plugin: 0, channel: 0, mcp: 0 };
  const visible = host.plan().visible;
  for (const { executor } of visible) counts[executor.kind] += 1;
  const parts = (Object.keys(counts) as ToolExecutorRef['kind'][]).map((kind) => `${counts[kind]} ${kind}`);
  return {
    level: 'info',
    subject: 'tools',
    message: `${visible.length} visible: ${parts.join(', ')} (channel tools live in channel sessions only)`,
  };
}

/** Which walls stand around plugin code: `ok` with both, a warning with the isolate alone. */
function wallsFinding(host: ToolHost): Finding {
  const walls = host.walls;
  const subject = 'walls';
  if (walls.jail.up) return { level: 'ok', subject, message: wallsLine(walls) };
  const inline = sandboxSettingOf(host.config).mode === 'inline';
  return {
    level: 'warning',
    subject,
    message: wallsLine(walls),
    fix: inline
      ? "set sandbox to 'process' (the default) to put plugin code in a jailed executor process"
      : process.platform === 'linux'
        ? "install bubblewrap (apt-get install bubblewrap) and allow user namespaces, or set sandbox.jail to 'off' to say so on purpose"
        : 'the jail exists on Linux only for now',
  };
}

/**
 * Whether the host's processes poll for a message due soon instead of sleeping
 * (`sandbox.pollMicros`, util/hot-loop.ts), and why: set in config, or the default for the CPUs
 * this process may use.
 */
function pollingFinding(host: ToolHost, cpus = availableParallelism()): Finding {
  const micros = sandboxSettingOf(host.config).pollMicros;
  const setting = sandboxObject(host.config.sandbox)?.pollMicros;
  const why =
    setting !== undefined
      ? 'from sandbox.pollMicros'
      : `the default with ${cpus} CPU${cpus === 1 ? '' : 's'} (${DEFAULT_POLL_MICROS} µs with 2 or more, 0 with one)`;
  return {
    level: 'info',
    subject: 'polling',
    message:
      micros === 0
        ? `off, ${why}: the executor, the host and serve sleep until each message comes`
        : `up to ${micros} µs, ${why}: the executor, the host waiting on it and serve over stdio poll for a message due soon, and stop by themselves where it does not pay; sandbox.pollMicros 0 turns it off`,
  };
}

/** How many plugin isolates are live and when they go. */
function isolatesFinding(stats: IsolateStats): Finding {
  const { live, maxLive, idleSeconds, evicted } = listedIsolates(stats);
  const went =
    evicted.idle + evicted.cap === 0 ? '' : `; evicted ${evicted.idle} idle, ${evicted.cap} at the cap`;
  return {
    level: 'info',
    subject: 'isolates',
    message: `${live} live (at most ${maxLive}; one idle for ${idleSeconds} s is disposed)${went}`,
  };
}

export async function doctor(argv: readonly string[], io: Io): Promise<number> {
  const { values } = parseCommand('doctor', argv, FLAGS.doctor.options);
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
      ...controlGrantFindings(host, project.configFile),
      ...hiddenToolFindings(host),
      ...registryFindings(host),
      ...mcpFindings(host),
      toolKindsFinding(host),
      wallsFinding(host),
      ...toolJailFindings(host),
      pollingFinding(host),
      isolatesFinding(await host.isolates()),
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
