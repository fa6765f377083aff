/**
 * The jails of the process tools (`exec`, each stdio MCP server) and the host check of each
 * remote server, as `doctor`, `dev`, `list --json` and `grant` say them: one implementation, so
 * the commands never disagree.
 */
import { type ProcessSandboxSetting, processSandboxOf } from '../config/process-sandbox.js';
import { sandboxSettingOf } from '../config/sandbox.js';
import type { ToolHost } from '../host/host.js';
import { type ProcessJail, processJailOf } from '../jail/index.js';
import { type JailRefusal, readRefusals, refusalText } from '../jail/refusals.js';
import type { Finding } from './findings.js';

/** One process tool's jail, or why it has none (grants as config writes them); a remote server's host check. */
export type ToolJail =
  | ({
      readonly tool: string;
      readonly kind: 'process';
      /** What its jail refused lately (kept in .toolhost/jail-refusals.json), each naming its key. */
      readonly refused: readonly string[];
    } & ProcessJail)
  | {
      readonly tool: string;
      readonly kind: 'remote';
      /** Loopback and private addresses its URL may resolve to (`mcpServers.<id>.net`). */
      readonly allowed: readonly string[];
    };

function processJail(
  tool: string,
  key: string,
  setting: ProcessSandboxSetting | undefined,
  host: ToolHost,
  refusals: readonly JailRefusal[],
): ToolJail {
  const { jail } = processJailOf(processSandboxOf(setting), key, sandboxSettingOf(host.config).jail);
  return {
    tool,
    kind: 'process',
    ...jail,
    refused: refusals.filter((r) => r.tool === tool).map(refusalText),
  };
}

/** `exec` (when enabled) and each MCP server of the config, in config order. */
export function toolJails(host: ToolHost): ToolJail[] {
  const refusals = readRefusals(host.root);
  const jails: ToolJail[] = [];
  const builtins = host.config.builtins;
  const exec = typeof builtins === 'object' && builtins.enabled !== false ? builtins.exec : undefined;
  if (exec?.enabled === true)
    jails.push(processJail('exec', 'builtins.exec.sandbox', exec.sandbox, host, refusals));
  for (const [name, entry] of Object.entries(host.config.mcpServers ?? {})) {
    if ('url' in entry) {
      jails.push({ tool: `mcp:${name}`, kind: 'remote', allowed: [...(entry.net ?? [])] });
    } else {
      jails.push(processJail(`mcp:${name}`, `mcpServers.${name}.sandbox`, entry.sandbox, host, refusals));
    }
  }
  return jails;
}

/** The tool as a person reads it: `exec`, `mcp server NAME`. */
export function toolSubject(tool: string): string {
  return tool.startsWith('mcp:') ? `mcp server ${tool.slice(4)}` : tool;
}

function listOf(values: readonly string[]): string {
  return values.length === 0 ? 'none' : values.join(', ');
}

/** One line: what the tool may reach, or that it is not jailed and why. */
export function toolJailLine(jail: ToolJail): string {
  if (jail.kind === 'remote') {
    return `remote: its host is checked like ctx.fetch's (no loopback or private address${jail.allowed.length === 0 ? '' : ` but ${listOf(jail.allowed)}`})`;
  }
  if (!jail.jailed) {
    return jail.optedOut
      ? `NOT jailed, on purpose (${jail.reason}): it has the user's reach`
      : `NOT jailed: ${jail.reason}`;
  }
  const { grants } = jail;
  const base =
    jail.tool === 'exec'
      ? 'jailed: writes the workspace (not the control files), reads the rest read-only'
      : 'jailed: sees the system read-only, a private /tmp and home, nothing of the project or home';
  return `${base}; granted read: ${listOf(grants.read)}; write: ${listOf(grants.write)}; net: ${listOf(grants.net)}; env: ${listOf(grants.env)}`;
}

/** `doctor`'s findings: each tool's jail, and what it was refused lately with the command that grants it. */
export function toolJailFindings(host: ToolHost): Finding[] {
  return toolJails(host).map((jail): Finding => {
    const subject = `${toolSubject(jail.tool)} walls`;
    if (jail.kind === 'remote') return { level: 'ok', subject, message: toolJailLine(jail) };
    if (!jail.jailed) {
      return {
        level: 'warning',
        subject,
        message: toolJailLine(jail),
        fix: jail.optedOut
          ? `remove ${jail.tool === 'exec' ? 'builtins.exec.sandbox' : `mcpServers.${jail.tool.slice(4)}.sandbox`}: false to jail it`
          : process.platform === 'linux'
            ? "install bubblewrap (apt-get install bubblewrap) and allow user namespaces, or set sandbox.jail to 'required' so nothing runs unjailed"
            : 'the jail exists on Linux only for now',
      };
    }
    if (jail.refused.length === 0) return { level: 'ok', subject, message: toolJailLine(jail) };
    return {
      level: 'warning',
      subject,
      message: `${toolJailLine(jail)}; refused lately:`,
      details: jail.refused,
      fix: `toolhost grant ${jail.tool === 'exec' ? 'exec' : jail.tool.slice(4)} writes the grants above into the config, showing the diff first`,
    };
  });
}

/** The grants `toolhost grant TOOL` writes: each recent refusal that a key can open, at that key. */
export function refusalGrants(host: ToolHost, tool: string): { key: string; value: string; said: string }[] {
  const seen = new Set<string>();
  const grants: { key: string; value: string; said: string }[] = [];
  for (const refusal of readRefusals(host.root)) {
    if (refusal.tool !== tool || refusal.key === undefined) continue;
    const value = refusal.grant ?? refusal.what;
    if (seen.has(`${refusal.key}\n${value}`)) continue;
    seen.add(`${refusal.key}\n${value}`);
    grants.push({ key: refusal.key, value, said: refusalText(refusal) });
  }
  return grants;
}
