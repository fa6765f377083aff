import { formatConfigIssues } from '../config/load.js';
import type { ToolHost } from '../host/host.js';
import { type Finding, render, warningLines } from './findings.js';
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

/** Where each plugin stood after a rebuild: to tell a code reload and a build error that changed. */
interface PluginState {
  readonly status: string;
  readonly fingerprint: string | undefined;
  readonly diagnostics: string;
}

function pluginStates(host: ToolHost): Map<string, PluginState> {
  return new Map(
    host.plugins.map((p) => [
      p.id,
      { status: p.status, fingerprint: p.fingerprint, diagnostics: p.diagnostics.join('; ') },
    ]),
  );
}

/** How a long-running command reports the host's changes. */
export interface ReportOptions {
  /** Warnings to show after a rebuild that changed them (`dev`); none by default. */
  readonly warnings?: () => readonly Finding[];
}

/**
 * Prints every rebuild (what changed, how long it took; "code reloaded" when only a plugin's
 * code did), each plugin error whenever its text changes (a second broken save is news too),
 * the warnings when they change, and every host error to `output`.
 */
function reportChanges(host: ToolHost, output: Output, options: ReportOptions): () => void {
  const style = styleFor(output);
  let plugins = pluginStates(host);
  const warningsText = () => {
    const findings = options.warnings?.() ?? [];
    return { findings, text: findings.map((f) => render(f, style).join('\n')).join('\n') };
  };
  let shown = warningsText().text;
  const offChange = host.on('change', (change) => {
    const before = plugins;
    plugins = pluginStates(host);
    const reloaded = [...plugins]
      .filter(([id, now]) => {
        const was = before.get(id);
        return (
          now.status === 'loaded' && was?.fingerprint !== undefined && was.fingerprint !== now.fingerprint
        );
      })
      .map(([id]) => id);
    const lines = changeLines(change, host.plan(), style, new Date(), reloaded);
    const said = lines.join('\n');
    for (const [id, now] of plugins) {
      if (now.diagnostics === '' || now.diagnostics === before.get(id)?.diagnostics) continue;
      if (!said.includes(now.diagnostics))
        lines.push(`  ${style.red(`plugin ${id} ${now.status}:`)} ${now.diagnostics}`);
    }
    if (options.warnings !== undefined) {
      const { findings, text } = warningsText();
      if (text !== shown) {
        lines.push(
          ...(findings.length === 0 ? ['  warnings: none now'] : warningLines(findings, style).slice(1)),
        );
        shown = text;
      }
    }
    output.write(`${lines.join('\n')}\n`);
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
  options: ReportOptions = {},
): Promise<void> {
  const stopReporting = reportChanges(host, output, options);
  // Listening for signals before the server starts: a SIGTERM that lands between the "serving"
  // line and the start's end must stop it cleanly, not kill it by default (exit 143).
  let started!: (served: Served) => void;
  const serving = new Promise<Served>((resolve) => {
    started = resolve;
  });
  const stopped = untilStopped(serving.then((served) => served.stopped ?? new Promise<never>(() => {})));
  try {
    const served = await start();
    started(served);
    await stopped;
    await served.close();
  } finally {
    stopReporting();
    await host.close();
  }
}
