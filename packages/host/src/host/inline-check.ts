/**
 * `sandbox: 'inline'` puts isolated-vm isolates in this process. On Node ≥ 20 isolated-vm needs
 * the process started with `--no-node-snapshot`: V8 shares read-only heap data between isolates
 * built from Node's startup snapshot, and isolates built otherwise can then crash the process
 * (SIGSEGV while creating an isolate, reported on macOS arm64: isolated-vm #420, #424). On Linux
 * x64 with Node 20.20 a short run without the flag worked, so the failure is not reliable enough
 * to wait for: the host refuses to start and says what to do instead.
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
