import { RUN_CODE } from '../../code-mode/index.js';
import { sandboxSettingOf } from '../../config/sandbox.js';
import { isCodeModeTool } from '../../core/register/code-mode.js';
import type { ToolHost } from '../../host/host.js';
import { internalsOf } from '../../host/internals.js';
import { isLoopback } from '../../serve/auth/loopback.js';
import { type EarlyStdio, keepServedTools, servedToolsKey } from '../../serve/early-stdio.js';
import { InFlightSlots, SCRIPT_IN_FLIGHT } from '../../serve/in-flight-slots.js';
import { applyCharges, report, SANDBOX_ENV, type Supervision, supervisionOf } from '../../serve/reports.js';
import { type InFlightRecorder, serveStdioRecorded } from '../../serve/stdio.js';
import { supervise } from '../../serve/supervisor.js';
import { portOf, UsageError } from '../args.js';
import { loud } from '../auth-line.js';
import { type Io, styleFor } from '../io.js';
import { openHost, resolveProject } from '../project.js';
import { SNAPSHOT_FLAG } from '../restart.js';
import { type Served, serveUntilStopped } from '../running.js';
import { writeStallLine } from '../stall-line.js';
import { EXIT } from '../types.js';
import { version } from '../version.js';
import { wallsLine } from '../walls.js';

type Sandbox = 'process' | 'inline';

/**
 * The heavy half of `toolhost serve` (serve.ts is the light one): loaded once the early answers
 * are up, since importing it is most of a start.
 */
export async function runServe(
  values: {
    root?: string;
    config?: string;
    http?: string;
    host?: string;
    'allow-unauthenticated'?: boolean;
    'no-watch'?: boolean;
    sandbox?: string;
  },
  argv: readonly string[],
  io: Io,
  early: EarlyStdio | undefined,
  flag: Sandbox | undefined,
): Promise<number> {
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
  const project = await resolveProject(values, { forHost: false });
  const supervision = supervisionOf(process.env);
  if (supervision !== undefined) return served(io, { project, port, listen, watch, supervision, early });
  const configured = project.config.ok ? sandboxSettingOf(project.config.config).mode : undefined;
  const sandbox = flag ?? configured ?? 'process';
  // Early answers went out only when the config read without checking said `process` (serve.ts);
  // a config edited since then cannot move this connection to another process.
  if (sandbox === 'process' || early !== undefined) {
    return served(io, { project, port, listen, watch, supervision: undefined, early });
  }
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
  /** What a call of tool `name` runs, as its slot names it. */
  const runs = (name: string | undefined) => {
    const tool = name === undefined ? undefined : internalsOf(host).registry.tools.get(name);
    // A run_code script runs inline here too, and is no plugin: a crash then is charged to none.
    const script = tool !== undefined && name === RUN_CODE && isCodeModeTool(tool);
    return script ? SCRIPT_IN_FLIGHT : tool?.source === 'plugin' ? tool.sourceId : undefined;
  };
  return {
    started: (id, name) => slots.started(id, runs(name)),
    answered: (id) => slots.answered(id),
    calling: (id, name) => slots.calling(id, runs(name)),
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
  /** The answers given before the host was up (stdio), to hand over. */
  readonly early: EarlyStdio | undefined;
}

async function served(
  io: Io,
  { project, port, listen, watch, supervision, early }: ServeRun,
): Promise<number> {
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
      // Loaded for HTTP only: a stdio server has no use for it and its JWT library (≈ 50 files).
      const { serveHttp } = await import('../../serve/http.js');
      const http = await serveHttp(host, {
        port,
        version,
        hostname: listen.hostname,
        ...(listen.open ? { auth: { allowUnauthenticated: true } } : {}),
        onWriteStall: (stall) => io.err.write(writeStallLine(stall)),
      });
      io.err.write(
        `toolhost: serving ${tools} tools over MCP streamable HTTP at ${http.url} (${watching}); ${where}\n`,
      );
      io.err.write(`toolhost: ${listen.open ? styleFor(io.err).red(loud(http.auth)) : http.auth}\n`);
      if (supervision !== undefined) report({ t: 'ready' });
      return http;
    }
    const restarted = (supervision?.restart ?? 0) > 0;
    // What this serve lists, kept for the next start's early answers (early-stdio.ts).
    const listed = () => host.session().tools('mcp');
    const keep = () => keepServedTools(project.root, servedToolsKey(version, project.configFile), listed());
    const handed = early?.handover();
    const stdio = await serveStdioRecorded(
      host,
      {
        version,
        ...(handed === undefined
          ? {}
          : {
              stdin: handed.stdin,
              handover: {
                ...(handed.initializeId === undefined ? {} : { initializeId: handed.initializeId }),
                listChanged:
                  handed.answeredTools !== undefined &&
                  JSON.stringify(handed.answeredTools) !== JSON.stringify(listed()),
              },
            }),
        ...(restarted
          ? {
              announce:
                'toolhost serve restarted after a crash (a plugin made V8 abort or the process died); ' +
                'requests that were in flight failed; the tool list may have changed',
            }
          : {}),
      },
      inFlight,
    );
    io.err.write(`toolhost: serving ${tools} tools over MCP stdio (${watching}); ${where}\n`);
    if (supervision !== undefined) report({ t: 'ready' });
    keep();
    const stopKeeping = host.on('change', keep);
    // The client closing stdin ends the session, as a signal does.
    const stdinEnded = new Promise<void>((resolve) => {
      process.stdin.once('end', resolve);
      process.stdin.once('close', resolve);
    });
    return {
      close: async () => {
        stopKeeping();
        await stdio.close();
      },
      stopped: Promise.race([stdio.closed, stdinEnded]),
    };
  });
  return EXIT.ok;
}
