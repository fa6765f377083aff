import { RUN_CODE } from '../../code-mode/index.js';
import { sandboxSettingOf } from '../../config/sandbox.js';
import { isCodeModeTool } from '../../core/register/code-mode.js';
import type { ToolHost } from '../../host/host.js';
import { isLoopback } from '../../serve/auth/gate.js';
import { serveHttp } from '../../serve/http.js';
import { InFlightSlots, SCRIPT_IN_FLIGHT } from '../../serve/in-flight-slots.js';
import { applyCharges, report, SANDBOX_ENV, type Supervision, supervisionOf } from '../../serve/reports.js';
import { type InFlightRecorder, serveStdio } from '../../serve/stdio.js';
import { supervise } from '../../serve/supervisor.js';
import { COMMON_OPTIONS, parseCommand, portOf, UsageError } from '../args.js';
import { loud } from '../auth-line.js';
import { type Io, styleFor } from '../io.js';
import { openHost, resolveProject } from '../project.js';
import { SNAPSHOT_FLAG } from '../restart.js';
import { type Served, serveUntilStopped } from '../running.js';
import { EXIT } from '../types.js';
import { version } from '../version.js';
import { wallsLine } from '../walls.js';

type Sandbox = 'process' | 'inline';

function sandboxOf(flag: string | undefined): Sandbox | undefined {
  if (flag === undefined || flag === 'process' || flag === 'inline') return flag;
  throw new UsageError(`--sandbox must be "process" or "inline", not ${JSON.stringify(flag)}`);
}

/**
 * `toolhost serve`. Where isolates live: `--sandbox`, else the config's `sandbox`, else `process`,
 * over stdio as over HTTP: the serve process holds the config, the project and the built-in tools,
 * so plugin code runs in the executor process, behind the second wall (its jail). `inline` runs
 * isolates in the serve process itself, behind the isolate alone, under a supervisor that restarts
 * it and answers the requests it had in flight (`InFlightSlots`); it saves a process hop per call.
 */
export async function serve(argv: readonly string[], io: Io): Promise<number> {
  const { values } = parseCommand('serve', argv, {
    ...COMMON_OPTIONS,
    http: { type: 'string' },
    host: { type: 'string' },
    'allow-unauthenticated': { type: 'boolean' },
    'no-watch': { type: 'boolean' },
    sandbox: { type: 'string' },
  });
  const port = values.http === undefined ? undefined : portOf('--http', values.http);
  if (port === undefined && (values.host !== undefined || values['allow-unauthenticated'] === true)) {
    throw new UsageError('--host and --allow-unauthenticated go with --http');
  }
  const listen: Listen = {
    hostname: values.host ?? '127.0.0.1',
    open: values['allow-unauthenticated'] === true,
  };
  if (listen.open && !isLoopback(listen.hostname)) {
    throw new UsageError(
      `--allow-unauthenticated is for a loopback address only, and --host ${listen.hostname} can be reached from other machines: give clients the project's token (toolhost token) instead`,
    );
  }
  const watch = values['no-watch'] !== true;
  const flag = sandboxOf(values.sandbox);
  const project = await resolveProject(values, { forHost: false });
  const supervision = supervisionOf(process.env);
  if (supervision !== undefined) return served(io, { project, port, listen, watch, supervision });
  const configured = project.config.ok ? sandboxSettingOf(project.config.config).mode : undefined;
  const sandbox = flag ?? configured ?? 'process';
  if (sandbox === 'process') return served(io, { project, port, listen, watch, supervision: undefined });
  return superviseServe(argv, io);
}

/** Runs this same command as a supervised child with isolates inline; resolves with its exit code. */
async function superviseServe(argv: readonly string[], io: Io): Promise<number> {
  const script = process.argv[1] ?? '';
  const supervisor = supervise({
    command: process.execPath,
    args: [SNAPSHOT_FLAG, ...process.execArgv.filter((a) => a !== SNAPSHOT_FLAG), script, 'serve', ...argv],
    log: (line) => io.err.write(`${line}\n`),
  });
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  const onSignal = (signal: NodeJS.Signals) => supervisor.stop(signal);
  for (const signal of signals) process.on(signal, onSignal);
  try {
    return await supervisor.done;
  } finally {
    for (const signal of signals) process.off(signal, onSignal);
  }
}

/** Keeps the requests in flight in the supervisor's slots, each with the plugin of its tool. */
function recordInFlight(host: ToolHost): InFlightRecorder {
  const slots = new InFlightSlots();
  return {
    started(id, name) {
      const tool = name === undefined ? undefined : host.registry.tools.get(name);
      // A run_code script runs inline here too, and is no plugin: a crash then is charged to none.
      const script = tool !== undefined && name === RUN_CODE && isCodeModeTool(tool);
      slots.started(id, script ? SCRIPT_IN_FLIGHT : tool?.source === 'plugin' ? tool.sourceId : undefined);
    },
    answered: (id) => slots.answered(id),
  };
}

/** Where `--http` listens, and whether it goes without authentication (loopback only). */
interface Listen {
  readonly hostname: string;
  readonly open: boolean;
}

interface ServeRun {
  readonly project: Awaited<ReturnType<typeof resolveProject>>;
  readonly port: number | undefined;
  readonly listen: Listen;
  readonly watch: boolean;
  /** Set in a process a supervisor runs: isolates inline, reports on fd 3. */
  readonly supervision: Supervision | undefined;
}

async function served(io: Io, { project, port, listen, watch, supervision }: ServeRun): Promise<number> {
  // Under a supervisor the sandbox is its call: `inline`, or `process` after a crash at load.
  const sandbox: Sandbox | undefined =
    supervision === undefined ? 'process' : process.env[SANDBOX_ENV] === 'process' ? 'process' : 'inline';
  // A server publishes the plugins that are ready; one that lags behind joins when it lands.
  const host = await openHost(project, io, { watch, sandbox, waitForPlugins: false });
  const inFlight = supervision === undefined ? undefined : recordInFlight(host);
  const quarantined = supervision === undefined ? [] : applyCharges(host, supervision.charges);
  if (quarantined.length > 0) {
    // The quarantine rebuilds the Map: serve the plan without those plugins' tools.
    await new Promise<void>((resolve) => {
      const off = host.on('change', () => {
        off();
        resolve();
      });
    });
  }
  const tools = host.plan().visible.length;
  const watching = watch ? 'watching for changes' : 'not watching';
  const where =
    sandbox === 'inline'
      ? 'plugin isolates in this supervised process (one wall: the isolate)'
      : `plugin isolates in an executor process; ${wallsLine(host.walls)}`;
  await serveUntilStopped(host, io.err, async (): Promise<Served> => {
    if (port !== undefined) {
      const http = await serveHttp(host, {
        port,
        version,
        hostname: listen.hostname,
        ...(listen.open ? { auth: { allowUnauthenticated: true } } : {}),
      });
      io.err.write(
        `toolhost: serving ${tools} tools over MCP streamable HTTP at ${http.url} (${watching}); ${where}\n`,
      );
      io.err.write(`toolhost: ${listen.open ? styleFor(io.err).red(loud(http.auth)) : http.auth}\n`);
      if (supervision !== undefined) report({ t: 'ready' });
      return http;
    }
    const restarted = (supervision?.restart ?? 0) > 0;
    const stdio = await serveStdio(host, {
      version,
      ...(inFlight === undefined ? {} : { inFlight }),
      ...(restarted
        ? {
            announce:
              'toolhost serve restarted after a crash (a plugin made V8 abort or the process died); ' +
              'requests that were in flight failed; the tool list may have changed',
          }
        : {}),
    });
    io.err.write(`toolhost: serving ${tools} tools over MCP stdio (${watching}); ${where}\n`);
    if (supervision !== undefined) report({ t: 'ready' });
    // The client closing stdin ends the session, as a signal does.
    const stdinEnded = new Promise<void>((resolve) => {
      process.stdin.once('end', resolve);
      process.stdin.once('close', resolve);
    });
    return { close: stdio.close, stopped: Promise.race([stdio.closed, stdinEnded]) };
  });
  return EXIT.ok;
}
