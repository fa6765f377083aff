import { writeSync } from 'node:fs';
import type { ToolHost } from '../host/host.js';
import { internalsOf } from '../host/internals.js';

/** Set (to `1`) in the environment of a `serve` process that a supervisor runs. */
export const SUPERVISED_ENV = 'TOOLHOST_SERVE_SUPERVISED';
/** How many times the supervisor restarted the `serve` process before this one (`0`: the first). */
export const RESTART_ENV = 'TOOLHOST_SERVE_RESTART';
/** `CrashCharges` as JSON: the crashes charged to each plugin by earlier `serve` processes. */
export const CRASHES_ENV = 'TOOLHOST_SERVE_CRASHES';
/** Where a supervised `serve` process runs isolates: `inline`, or `process` after a crash at load. */
export const SANDBOX_ENV = 'TOOLHOST_SERVE_SANDBOX';
/** The fd a supervised `serve` process reports on (a pipe to the supervisor). */
const REPORT_FD = 3;

/** Crashes charged to each plugin, by plugin id, not yet turned into a quarantine. */
export type CrashCharges = Record<string, { readonly count: number; readonly message: string }>;

/** One line a supervised `serve` process writes on fd 3. */
export type ServeReport =
  /** Serving: from now on, an abnormal end is a crash to restart from. */
  | { readonly t: 'ready' }
  /** A charged plugin is quarantined now (in `.toolhost/quarantine.json`): its charges can go. */
  | { readonly t: 'quarantined'; readonly pluginId: string };

/** What this process was told by its supervisor; undefined when it runs on its own. */
export interface Supervision {
  /** Restarts before this process; > 0 after a crash. */
  readonly restart: number;
  readonly charges: CrashCharges;
}

export function supervisionOf(env: NodeJS.ProcessEnv): Supervision | undefined {
  if (env[SUPERVISED_ENV] !== '1') return undefined;
  let charges: CrashCharges = {};
  try {
    const parsed = JSON.parse(env[CRASHES_ENV] ?? '{}') as unknown;
    if (typeof parsed === 'object' && parsed !== null) charges = parsed as CrashCharges;
  } catch {
    // A garbled variable only loses the charges.
  }
  return { restart: Number(env[RESTART_ENV]) || 0, charges };
}

/** Writes one report synchronously (it may be the last thing this process does); never throws. */
export function report(line: ServeReport): void {
  try {
    writeSync(REPORT_FD, `${JSON.stringify(line)}\n`);
  } catch {
    // No supervisor listening any more: nothing to tell.
  }
}

/**
 * Charges earlier crashes to the plugins loaded now, so a plugin that keeps making V8 abort is
 * quarantined after three crashes even though each one ended the process that counted it.
 * Returns the plugins quarantined now (the host rebuilds its Map for them).
 */
export function applyCharges(host: ToolHost, charges: CrashCharges): string[] {
  const quarantined: string[] = [];
  for (const [pluginId, charge] of Object.entries(charges)) {
    for (let i = 0; i < charge.count; i++) {
      if (internalsOf(host).chargePluginCrash(pluginId, charge.message)) {
        quarantined.push(pluginId);
        report({ t: 'quarantined', pluginId });
        break;
      }
    }
  }
  return quarantined;
}

/** A JSON-RPC request id (the MCP SDK's `RequestId`). */
export type RequestId = string | number;
