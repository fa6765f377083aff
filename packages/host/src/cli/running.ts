import { formatConfigIssues } from '../config/load.js';
import type { ToolHost } from '../host/host.js';
import { type Output, styleFor } from './io.js';
import { changeLines } from './view.js';

/**
 * Resolves on the first SIGINT, SIGTERM or SIGHUP (or when `also` settles), so a long-running
 * command can close its servers and host and exit 0. A second signal while closing exits at once.
 */
function untilStopped(also?: Promise<unknown>): Promise<string> {
  return new Promise((resolve) => {
    const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
    let stopping = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (stopping) process.exit(130);
      stopping = true;
      resolve(signal);
    };
    for (const signal of signals) process.on(signal, onSignal);
    also?.then(
      () => resolve('closed'),
      () => resolve('closed'),
    );
  });
}

/** Prints every rebuild (what changed, how long it took) and every host error to `output`. */
function reportChanges(host: ToolHost, output: Output): () => void {
  const style = styleFor(output);
  const offChange = host.on('change', (change) => {
    output.write(`${changeLines(change, host.plan(), style).join('\n')}\n`);
  });
  const offError = host.on('error', (error) => {
    const detail =
      error.kind === 'config'
        ? `config error (the last good config stays in force):\n${formatConfigIssues(error.issues)}`
        : `watch error: ${error.message}`;
    output.write(`${style.red(detail)}\n`);
  });
  return () => {
    offChange();
    offError();
  };
}

/** A server a long-running command runs; `stopped`, when given, settles when it ends on its own. */
export interface Served {
  close(): Promise<void>;
  readonly stopped?: Promise<unknown>;
}

/**
 * The life of a long-running command: reports the host's changes to `output` while the server
 * `start` opens runs, until a signal (or the server's own end); then closes the server, and the
 * host whatever happened.
 */
export async function serveUntilStopped(
  host: ToolHost,
  output: Output,
  start: () => Promise<Served>,
): Promise<void> {
  const stopReporting = reportChanges(host, output);
  try {
    const served = await start();
    await untilStopped(served.stopped);
    await served.close();
  } finally {
    stopReporting();
    await host.close();
  }
}
