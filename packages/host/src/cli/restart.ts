import { spawn } from 'node:child_process';

/** The flag isolated-vm needs when isolates live in this process (`sandbox: 'inline'`). */
export const SNAPSHOT_FLAG = '--no-node-snapshot';

/**
 * Thrown before any work when this process must run again with {@link SNAPSHOT_FLAG}; the entry
 * point catches it and re-executes itself.
 */
export class RestartWithFlag extends Error {
  override readonly name = 'RestartWithFlag';
  readonly code = 'restart-with-flag';
}

export function isRestart(error: unknown): error is RestartWithFlag {
  return (error as { code?: unknown } | null)?.code === 'restart-with-flag';
}

/**
 * Runs this same command again in a child Node with {@link SNAPSHOT_FLAG}, stdio inherited and
 * termination signals passed on; resolves with the child's exit code.
 */
export function restartWithFlag(): Promise<number> {
  const [script, ...args] = process.argv.slice(1);
  const child = spawn(process.execPath, [SNAPSHOT_FLAG, ...process.execArgv, script ?? '', ...args], {
    stdio: 'inherit',
  });
  const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
  const handlers = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((signal) => {
    const handler = forward(signal);
    process.on(signal, handler);
    return [signal, handler] as const;
  });
  return new Promise((resolve) => {
    child.once('error', (error) => {
      process.stderr.write(`toolhost: cannot restart with ${SNAPSHOT_FLAG}: ${error.message}\n`);
      resolve(1);
    });
    child.once('exit', (code, signal) => {
      for (const [name, handler] of handlers) process.off(name, handler);
      resolve(code ?? (signal === null ? 1 : 128 + signalNumber(signal)));
    });
  });
}

function signalNumber(signal: NodeJS.Signals): number {
  return { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 }[signal as string] ?? 1;
}
