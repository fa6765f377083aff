import type { ProcessGrants, ProcessSandbox } from '../config/process-sandbox.js';
import { jailSupport } from './bwrap.js';
import type { JailMode } from './types.js';

/** Where a process goes under `sandbox.jail`: in the jail, or why not. */
export type JailPlacement =
  | { readonly jailed: true; readonly bwrap: string; readonly seccomp: boolean }
  | { readonly jailed: false; readonly reason: string; readonly refused: boolean };

/**
 * The one rule of `sandbox.jail`, for the executor and every process tool alike: in the jail
 * wherever this machine can make one; unjailed with `off`, or with `auto` where it cannot (said
 * by `reason`); refused with `required` there, so nothing silently runs unjailed.
 */
export function jailPlacement(mode: JailMode): JailPlacement {
  if (mode === 'off') return { jailed: false, reason: "sandbox.jail is 'off'", refused: false };
  const support = jailSupport();
  if (support.available) return { jailed: true, bwrap: support.bwrap, seccomp: support.seccomp };
  if (mode === 'required') {
    return { jailed: false, reason: `sandbox.jail is 'required', and ${support.reason}`, refused: true };
  }
  return { jailed: false, reason: support.reason, refused: false };
}

/** Where a process tool (`exec`, a stdio MCP server) runs: in its jail with its grants, or unjailed and why. */
export type ProcessJail =
  | { readonly jailed: true; readonly seccomp: boolean; readonly grants: ProcessGrants }
  | {
      readonly jailed: false;
      readonly reason: string;
      /** `sandbox: false` in its entry. */
      readonly optedOut: boolean;
    };

/**
 * Where a process tool with this sandbox setting (written at `key`) runs under `sandbox.jail`
 * `mode`: unjailed on purpose when the setting says so, else where {@link jailPlacement} puts it.
 * `refusal`: why the mode will not let it run unjailed, when it will not.
 */
export function processJailOf(
  sandbox: ProcessSandbox,
  key: string,
  mode: JailMode,
): { readonly jail: ProcessJail; readonly refusal?: string } {
  if (!sandbox.jail) return { jail: { jailed: false, reason: `${key} is false`, optedOut: true } };
  const placement = jailPlacement(mode);
  if (placement.jailed) return { jail: { jailed: true, seccomp: placement.seccomp, grants: sandbox.grants } };
  const jail: ProcessJail = { jailed: false, reason: placement.reason, optedOut: false };
  return placement.refused ? { jail, refusal: placement.reason } : { jail };
}
