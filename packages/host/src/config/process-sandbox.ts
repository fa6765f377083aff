import * as os from 'node:os';
import * as path from 'node:path';
import type { PluginGrants } from './grants.js';

/**
 * `builtins.exec.sandbox` and `mcpServers.<id>.sandbox`: the grant vocabulary of every process
 * tool, in the words of plugins' `grants` (paths to read, paths to write, network hosts,
 * environment variable names; a path may also be absolute, or `~/` for the home folder). `true`
 * or absent: jailed by `sandbox.jail`'s rule with nothing granted; `false`: unjailed, on purpose;
 * an object: jailed, with these grants.
 */
export type ProcessSandboxSetting = boolean | PluginGrants;

/** What a jailed process may reach beyond its default view: paths (absolute once resolved against the root), host patterns as written, variable names. */
export interface ProcessGrants {
  readonly read: readonly string[];
  readonly write: readonly string[];
  readonly net: readonly string[];
  readonly env: readonly string[];
}

/** A process tool's sandbox setting, resolved: whether it jails, and what it grants. */
export interface ProcessSandbox {
  /** False when config says `sandbox: false`. */
  readonly jail: boolean;
  readonly grants: ProcessGrants;
}

/**
 * The setting resolved: whether it jails, and its grants as flat lists. With `root`, paths are made
 * absolute (relative ones against `root`); without, they stay as config writes them.
 */
export function processSandboxOf(setting: ProcessSandboxSetting | undefined, root?: string): ProcessSandbox {
  const grants = typeof setting === 'object' ? setting : {};
  // `~/` is the home folder, as the refusals write a path there.
  const place = (p: string) =>
    root === undefined ? p : p.startsWith('~/') ? path.join(os.homedir(), p.slice(2)) : path.resolve(root, p);
  return {
    jail: setting !== false,
    grants: {
      read: (grants.fs?.read ?? []).map(place),
      write: (grants.fs?.write ?? []).map(place),
      net: [...(grants.net ?? [])],
      env: [...(grants.env ?? [])],
    },
  };
}
