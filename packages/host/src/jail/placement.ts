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
