import { type ChildProcess, spawn } from 'node:child_process';
import { writeSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { SharedTempFile } from '../util/temp-file.js';
import { type InFlightRequest, readInFlight, SCRIPT_IN_FLIGHT } from './in-flight-slots.js';
import {
  CRASHES_ENV,
  type CrashCharges,
  RESTART_ENV,
  SANDBOX_ENV,
  type ServeReport,
  SUPERVISED_ENV,
} from './reports.js';

/** How a supervisor restarts its child; every field has a default. */
export interface SupervisorOptions {
  /** The child: a program and its arguments (the `serve` command run by this Node). */
  readonly command: string;
  readonly args: readonly string[];
  /** The child's environment; default `process.env`. The supervisor adds its own variables. */
  readonly env?: NodeJS.ProcessEnv;
  /** Where the supervisor's lines go (stderr: stdout belongs to the protocol). */
  readonly log: (line: string) => void;
  /**
   * Writes the supervisor's answers for a dead child on the protocol's stream; default: fd 1,
   * synchronously (the supervisor's stdout is the child's, inherited).
   */
  readonly answer?: (text: string) => void;
  /** Delay before the first restart, ms, doubled after each crash up to `maxMs`; default 100 / 5 000. */
  readonly backoff?: { readonly initialMs: number; readonly maxMs: number };
  /** Gives up after `crashes` abnormal exits within `windowMs`; default 5 within 60 000 ms. */
  readonly crashLoop?: { readonly crashes: number; readonly windowMs: number };
}

/** What a supervisor reports: its child's pid changes, for tests and diagnostics. */
export interface Supervisor {
  /** The running child's pid, undefined between a crash and its restart. */
  readonly pid: number | undefined;
  /** The exit code the supervisor's process should end with. */
  readonly done: Promise<number>;
  /** Passes a signal on to the child; no restart follows its exit. */
  stop(signal: NodeJS.Signals): void;
}

const SIGNAL_NUMBERS: Partial<Record<NodeJS.Signals, number>> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGABRT: 6,
  SIGKILL: 9,
  SIGSEGV: 11,
  SIGTERM: 15,
};

/**
 * Runs the `serve` process and restarts it when it dies abnormally. The supervisor owns nothing
 * but the child: stdin and stdout are the child's own (inherited fds, no hop per message), and the
 * child reports on fd 3 (`ServeReport` lines) when it is ready and when a plugin got quarantined,
 * and keeps its requests in flight in slots the supervisor reads once it died (fd 4,
 * `InFlightSlots`): the child needs no last word of its own, so V8 may abort it at once, even
 * inside a sync isolate entry.
 *
 * - A child that ends with code 0, or after a signal the supervisor passed on, is not restarted.
 * - A child that ends before it reported ready is not restarted either: its failure (bad config,
 *   usage) would only repeat. Its exit code is the supervisor's.
 * - Any other end (a signal such as SIGABRT, a non-zero code) is a crash: the supervisor answers
 *   each request the child had in flight with a JSON-RPC error on stdout (after a newline, so a
 *   line the child left unfinished cannot swallow the first), logs the crash on stderr, and
 *   restarts the child after a backoff. A crash by a fault signal (SIGABRT, SIGSEGV, …) while the
 *   calls in flight were all to one plugin is charged to that plugin and passed to the next child,
 *   which quarantines it after three, as the executor process does. A kill from outside (SIGKILL,
 *   say the kernel's OOM killer) or an exit code charges nobody.
 * - `crashLoop.crashes` crashes within `crashLoop.windowMs` end the supervisor with code 1 and a
 *   message saying so.
 */
export function supervise(options: SupervisorOptions): Supervisor {
  const backoff = options.backoff ?? { initialMs: 100, maxMs: 5_000 };
  const crashLoop = options.crashLoop ?? { crashes: 5, windowMs: 60_000 };
  const charges: Record<string, CrashCharges[string]> = {};
  const crashTimes: number[] = [];
  let child: ChildProcess | undefined;
  let stopping: NodeJS.Signals | undefined;
  let restartTimer: NodeJS.Timeout | undefined;
  let restarts = 0;
  /** `inline` until a child dies while loading plugins: then the executor process takes the risk. */
  let sandbox: 'inline' | 'process' = 'inline';
  let delay = backoff.initialMs;
  let finish: (code: number) => void = () => {};
  const done = new Promise<number>((resolve) => {
    finish = resolve;
  });

  const answer = options.answer ?? ((text: string) => writeAllSync(1, text));

  const start = () => {
    restartTimer = undefined;
    let ready = false;
    const slots = new SharedTempFile('toolhost-in-flight');
    const env = {
      ...(options.env ?? process.env),
      [SUPERVISED_ENV]: '1',
      [RESTART_ENV]: String(restarts),
      [CRASHES_ENV]: JSON.stringify(charges),
      [SANDBOX_ENV]: sandbox,
    };
    const spawned = spawn(options.command, [...options.args], {
      env,
      stdio: ['inherit', 'inherit', 'inherit', 'pipe', slots.fd],
    });
    child = spawned;
    const reports = spawned.stdio[3];
    if (reports !== null && reports !== undefined) {
      createInterface({ input: reports as NodeJS.ReadableStream }).on('line', (line) => {
        let report: ServeReport;
        try {
          report = JSON.parse(line) as ServeReport;
        } catch {
          return;
        }
        if (report.t === 'ready') {
          ready = true;
        } else if (report.t === 'quarantined') {
          // Its quarantine now lives in the project's .toolhost/quarantine.json.
          delete charges[report.pluginId];
        }
      });
    }
    spawned.once('error', (error) => {
      options.log(`toolhost serve: cannot start the serve process: ${error.message}`);
    });
    spawned.once('close', (code, signal) => {
      child = undefined;
      const exitCode = code ?? 128 + (signal === null ? 0 : (SIGNAL_NUMBERS[signal] ?? 0));
      if (stopping !== undefined || code === 0) {
        slots.close();
        finish(exitCode);
        return;
      }
      const inFlight = readSlots(slots, options.log);
      const lastWords = answerInFlight(inFlight, how(code, signal), answer, options.log);
      if (!ready) {
        // A plugin that makes V8 abort while it is described would do it again at every start:
        // the next start describes it in an executor process, which survives that.
        if (sandbox === 'inline' && signal !== null) {
          sandbox = 'process';
          onCrash(
            `${how(code, signal)} while loading plugins; it restarts with isolates in an executor process`,
            lastWords,
          );
          return;
        }
        options.log(`toolhost serve: the serve process ended before it served (${how(code, signal)})`);
        finish(exitCode === 0 ? 1 : exitCode);
        return;
      }
      onCrash(
        how(code, signal),
        signal !== null && FAULTS.has(signal) ? lastWords : { ...lastWords, plugins: [] },
      );
    });
  };

  const onCrash = (ending: string, lastWords: LastWords) => {
    const now = Date.now();
    while (crashTimes.length > 0 && (crashTimes[0] ?? now) <= now - crashLoop.windowMs) crashTimes.shift();
    // A child that outlived the window starts the backoff afresh.
    if (crashTimes.length === 0) delay = backoff.initialMs;
    crashTimes.push(now);
    const cause =
      lastWords.answered === 0
        ? `the serve process died (${ending}) with no request in flight`
        : `the serve process died (${ending}) while ${describePlugins(lastWords.plugins)} ran; ` +
          `its ${lastWords.answered} request(s) in flight were answered with an error`;
    const [only, ...others] = lastWords.plugins;
    if (only !== undefined && others.length === 0 && lastWords.script !== true) {
      const previous = charges[only];
      charges[only] = { count: (previous?.count ?? 0) + 1, message: `the serve process died (${ending})` };
    }
    if (crashTimes.length >= crashLoop.crashes) {
      options.log(
        `toolhost serve: ${cause}. It crashed ${crashTimes.length} times within ${crashLoop.windowMs / 1000} s: giving up; the client's connection ends now`,
      );
      finish(1);
      return;
    }
    restarts += 1;
    options.log(
      `toolhost serve: ${cause}. Restarting it in ${delay} ms (restart ${restarts}); the client stays connected, its session state (log level) starts afresh`,
    );
    restartTimer = setTimeout(start, delay);
    delay = Math.min(delay * 2, backoff.maxMs);
  };

  start();
  return {
    get pid() {
      return child?.pid;
    },
    done,
    stop(signal) {
      stopping = signal;
      if (restartTimer !== undefined) {
        clearTimeout(restartTimer);
        restartTimer = undefined;
        finish(0);
        return;
      }
      child?.kill(signal);
    },
  };
}

/** What the supervisor said for a dead child: how many requests it answered, and whose calls they were. */
interface LastWords {
  readonly answered: number;
  /** The plugins with calls in flight (none: the crash is charged to nobody). */
  readonly plugins: readonly string[];
  /** A code-mode script was running too: the crash is charged to nobody (see `SCRIPT_IN_FLIGHT`). */
  readonly script?: boolean;
}

/** Signals of a process's own fault (V8's abort among them), as opposed to a kill from outside. */
const FAULTS: ReadonlySet<NodeJS.Signals> = new Set([
  'SIGABRT',
  'SIGSEGV',
  'SIGBUS',
  'SIGILL',
  'SIGFPE',
  'SIGTRAP',
]);

function readSlots(slots: SharedTempFile, log: (line: string) => void): InFlightRequest[] {
  try {
    return readInFlight(slots);
  } catch (error) {
    log(`toolhost serve: cannot read the requests in flight: ${(error as Error).message}`);
    return [];
  } finally {
    slots.close();
  }
}

/**
 * Answers each request a dead child had in flight with a JSON-RPC error naming the plugins that
 * were running, after a newline that ends any line the child left unfinished.
 */
function answerInFlight(
  inFlight: readonly InFlightRequest[],
  ending: string,
  answer: (text: string) => void,
  log: (line: string) => void,
): LastWords {
  const script = inFlight.some((r) => r.pluginId === SCRIPT_IN_FLIGHT);
  const plugins = [
    ...new Set(
      inFlight.flatMap((r) =>
        r.pluginId === undefined || r.pluginId === SCRIPT_IN_FLIGHT ? [] : [r.pluginId],
      ),
    ),
  ];
  if (inFlight.length === 0) return { answered: 0, plugins };
  const names = script ? [...plugins, 'a run_code script'] : plugins;
  const running = names.length === 0 ? '' : ` (plugins running: ${names.join(', ')})`;
  const message =
    `toolhost serve crashed: the serve process died (${ending}) while this request was running${running}; ` +
    'the server restarts and serves again: call again';
  let text = '\n';
  for (const { id } of inFlight) {
    text += `${JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32603, message } })}\n`;
  }
  try {
    answer(text);
  } catch (error) {
    log(
      `toolhost serve: cannot answer the requests in flight (the client has gone?): ${(error as Error).message}`,
    );
    return { answered: 0, plugins, script };
  }
  return { answered: inFlight.length, plugins, script };
}

/**
 * Writes all of `text` to `fd` before returning. The fd is shared with the child's stdout, whose
 * Node may have left it non-blocking: a full pipe then says EAGAIN, and the write is retried after
 * 1 ms, for up to 5 s (a client that reads nothing for that long has lost its answers anyway).
 */
function writeAllSync(fd: number, text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  const pause = new Int32Array(new SharedArrayBuffer(4));
  let written = 0;
  for (let waited = 0; written < bytes.length; ) {
    try {
      written += writeSync(fd, bytes, written, bytes.length - written);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN' || waited >= 5_000) throw error;
      Atomics.wait(pause, 0, 0, 1);
      waited += 1;
    }
  }
}

function how(code: number | null, signal: NodeJS.Signals | null): string {
  return signal !== null ? `signal ${signal}` : `exit code ${code}`;
}

function describePlugins(plugins: readonly string[]): string {
  if (plugins.length === 0) return 'no plugin tool call';
  return plugins.length === 1
    ? `plugin "${plugins[0]}"`
    : `plugins ${plugins.map((p) => `"${p}"`).join(', ')}`;
}
