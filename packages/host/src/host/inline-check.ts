/**
 * `sandbox: 'inline'` puts isolated-vm isolates in this process. isolated-vm needs the process
 * started with `--no-node-snapshot` (its README, still for 7.0.1: "If you are using a version of
 * nodejs 20.x or later, you must pass --no-node-snapshot"): V8 shares read-only heap data between
 * isolates built from Node's startup snapshot, and isolates built otherwise can then crash the
 * process (SIGSEGV while creating an isolate, isolated-vm #420, #424; the maintainer calls it a
 * V8 bug). Re-measured on Node 24.21 with isolated-vm 7.0.1: the reproduction that corrupted
 * isolates on Node 20 (`--shared-string-table`, 50 isolates) no longer does, but the engine still
 * requires the flag and nothing says why the crash went away, so the host still refuses to start
 * without it and says what to do instead.
 */

/** Thrown by `createHost` for an inline sandbox in a process without the flag. */
export class InlineSandboxError extends Error {
  override readonly name = 'InlineSandboxError';
  readonly code = 'inline-needs-no-node-snapshot';
}

const FLAG = '--no-node-snapshot';

/** Throws {@link InlineSandboxError} when `sandbox` is inline and this Node needs the flag it lacks. */
export function checkInlineSandbox(
  sandbox: 'process' | 'inline',
  execArgv: readonly string[] = process.execArgv,
  nodeVersion: string = process.versions.node,
): void {
  if (sandbox !== 'inline' || execArgv.includes(FLAG)) return;
  if (Number(nodeVersion.split('.')[0]) < 20) return;
  throw new InlineSandboxError(
    `sandbox 'inline' runs plugin isolates in this process, and isolated-vm needs Node ${nodeVersion} ` +
      `started with ${FLAG} for that (without it V8 shares heap data between Node's snapshot and the ` +
      'isolates, which can corrupt them or crash the process). ' +
      `Run node ${FLAG} your-script.js, or use sandbox 'process' (the default: isolates in a ` +
      'child process that already has the flag). The toolhost CLI restarts itself with the flag.',
  );
}
