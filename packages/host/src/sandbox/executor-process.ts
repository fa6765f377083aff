import type { Socket } from 'node:net';
import { jailedPid } from '../jail/index.js';
import { messageOf } from '../util/errors.js';
import { type Frame, FrameReader, FrameWriter } from './channel.js';
import { type ExecutorPlacement, endedAs, spawnExecutor } from './executor-spawn.js';
import type { ToExecutor } from './ipc.js';
import { loadPreludeScript } from './isolate-script.js';
import type { PreludeKind } from './prelude-kind.js';
import { type Executor, JAIL_EXIT_GRACE_MS, NOWHERE } from './process-requests.js';
import { STARTED_MARK_FD, StartedMarkFile } from './started-mark.js';

/** What the sandbox does when one of its executor processes speaks, ends or must be killed. */
export interface ExecutorEvents {
  onFrame(frame: Frame, executor: Executor): void;
  /** It has exited and its channel is closed: every message it managed to send has arrived. */
  onEnded(executor: Executor): void;
  kill(executor: Executor): void;
  /** The sandbox is closing: a closed channel is expected, not a fault. */
  closed(): boolean;
}

/**
 * Starts executor process number `generation` of a sandbox and watches it: its startup deadline,
 * its channel (frames in, protocol faults), its exit. The sandbox sends it everything else.
 */
export function startExecutor(
  entry: string,
  placement: ExecutorPlacement,
  generation: number,
  startupMs: number,
  events: ExecutorEvents,
): Executor {
  // fd 3 is the channel: a socket pair, both ways (the fork IPC channel is not used: see channel.ts).
  // fd 4 is where it counts the requests it has read (started-mark.ts).
  let startedMark: StartedMarkFile | undefined;
  try {
    startedMark = StartedMarkFile.open();
  } catch {
    // No temp file (disk full, no temp folder): the process still runs, and if it dies every
    // request sent to it counts as started, so none can run twice.
  }
  const extra: ('pipe' | number)[] = ['pipe'];
  if (startedMark !== undefined) extra[STARTED_MARK_FD - 3] = startedMark.fd;
  const child = spawnExecutor(entry, placement, extra);
  // Absent only when the spawn failed at once (too many open files): 'error' then says so.
  const channel = (child.stdio[3] ?? undefined) as Socket | undefined;
  const executor: Executor = {
    child,
    channel,
    writer: new FrameWriter(channel ?? NOWHERE),
    startedMark,
    preludes: new Set(),
    sent: 0,
    generation,
    ready: false,
    open: channel !== undefined,
    lastPong: Date.now(),
  };
  executor.startup = setTimeout(() => {
    if (executor.ready || executor.ended !== undefined) return;
    executor.killedBy = 'startup';
    events.kill(executor);
  }, startupMs);
  executor.startup.unref();
  const reader = new FrameReader(
    (frame) => {
      try {
        events.onFrame(frame, executor);
      } catch {
        // A host-side fault handling one message (a throwing sink) must not take the host down.
      }
    },
    (error) => {
      // Only our executor writes there: whatever it sends now cannot be trusted. A crash: its
      // running requests fail, the others go to the next process.
      executor.protocolError ??= error.message;
      executor.killedBy ??= 'protocol';
      executor.open = false;
      events.kill(executor);
    },
  );
  channel?.on('data', (chunk: Buffer) => reader.push(chunk));
  // Settled once it has exited *and* its channel is closed, i.e. after every message it managed
  // to send, and after its last count of the requests it had started.
  let waiting = 2;
  const settle = () => {
    waiting -= 1;
    if (waiting === 0) events.onEnded(executor);
  };
  const jailed = placement.jailed;
  child.on('exit', (code, signal) => {
    executor.ended = endedAs(code, signal, jailed);
    clearTimeout(executor.startup);
    settle();
  });
  // A write to a process that died fails here; its exit is what counts.
  channel?.on('error', () => {});
  channel?.once('close', () => {
    executor.open = false;
    settle();
    // A process without its channel is of no use, and would keep requests waiting: end it.
    // Jailed, the channel closes as the executor exits, a moment before bubblewrap passes its
    // exit on: killed at once, bubblewrap would report SIGKILL instead of how the executor ended.
    if (events.closed() || executor.ended !== undefined) return;
    if (!jailed) child.kill('SIGKILL');
    else setTimeout(() => executor.ended === undefined && child.kill('SIGKILL'), JAIL_EXIT_GRACE_MS).unref();
  });
  child.on('error', (error) => {
    // A process that could not be spawned at all never exits nor disconnects.
    if (child.pid !== undefined || executor.ended !== undefined) return;
    executor.ended = `spawn failed: ${error.message}`;
    waiting = 1;
    settle();
  });
  return executor;
}

/**
 * Ends `executor` at once. Jailed, the executor itself goes first: bubblewrap's death reaches it
 * too, but a moment later, in which it could still read (and count as started) more requests.
 */
export function killExecutor(executor: Executor, jailed: boolean): void {
  const pid = executor.child.pid;
  const inner = jailed && pid !== undefined ? jailedPid(pid) : undefined;
  if (inner !== undefined) {
    try {
      process.kill(inner, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  executor.child.kill('SIGKILL');
}

/** Sends `executor` the prelude of `kind` once it is built, unless it already has it. */
export function sendPrelude(executor: Executor, kind: PreludeKind): void {
  if (executor.preludes.has(kind)) return;
  executor.preludes.add(kind);
  const send = (head: ToExecutor, body?: string) => {
    if (executor.ended === undefined && executor.open) executor.writer.send(JSON.stringify(head), body);
  };
  loadPreludeScript(kind).then(
    (code) => send({ t: 'prelude', kind }, code),
    (error: unknown) =>
      send({
        t: 'prelude',
        kind,
        error: `the host could not build the sandbox prelude: ${messageOf(error)}`,
      }),
  );
}
