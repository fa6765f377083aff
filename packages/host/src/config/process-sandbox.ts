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

/** What a jailed process may reach beyond its default view: absolute paths, host patterns as written, variable names. */
export interface ProcessGrants {
  readonly read: readonly string[];
  readonly write: readonly string[];
  readonly net: readonly string[];
  readonly env: readonly string[];
}

/** A process tool's sandbox setting, resolved against the project root. */
export interface ProcessSandbox {
  /** False when config says `sandbox: false`. */
  readonly jail: boolean;
  readonly grants: ProcessGrants;
}

/** The setting with paths made absolute (relative ones against `root`). */
export function processSandboxOf(setting: ProcessSandboxSetting | undefined, root: string): ProcessSandbox {
  const grants = typeof setting === 'object' ? setting : {};
  // `~/` is the home folder, as the refusals write a path there.
  const absolute = (list: readonly string[] | undefined) =>
    (list ?? []).map((p) =>
      p.startsWith('~/') ? path.join(os.homedir(), p.slice(2)) : path.resolve(root, p),
    );
  return {
    jail: setting !== false,
    grants: {
      read: absolute(grants.fs?.read),
      write: absolute(grants.fs?.write),
      net: [...(grants.net ?? [])],
      env: [...(grants.env ?? [])],
    },
  };
}
