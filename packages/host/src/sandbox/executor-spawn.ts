import { type ChildProcess, spawn } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { constants } from 'node:os';
import {
  bwrapArgs,
  executorJail,
  type JailMode,
  type JailPlacement,
  jailPlacement,
  SECCOMP_FD,
  seccompProgram,
  type Walls,
} from '../jail/index.js';
import { escapeControls } from '../util/text.js';

/**
 * A larger young generation for the executor: with thousands of calls in flight, the objects of
 * one chunk's calls (frames, outcomes, handlers) outlive V8's default semi-space and were copied
 * and promoted at every scavenge, a quarter of the executor's CPU. Measured on Node 20 with 5,000
 * calls in flight: 48–63 → 30–54 µs of executor CPU per call over 4 alternating bursts, peak RSS
 * 249 → 367 MB; V8 grows the semi-space only under such load, so a quiet executor costs nothing
 * more. (Plugin isolates get their own young generation back: young-generation.ts.)
 */
export const EXECUTOR_YOUNG_GENERATION = '--max-semi-space-size=64';
/** `--no-node-snapshot`: isolated-vm's README (7.0.1 too) requires it on Node ≥ 20 (host/inline-check.ts). */
const NODE_FLAGS = ['--no-node-snapshot', EXECUTOR_YOUNG_GENERATION];

/** How the executor process is started: jailed, or why not. */
export type ExecutorPlacement = JailPlacement;

/** Where the executor goes under `mode` (the one rule of `sandbox.jail`, jail/placement.ts). */
export const executorPlacement: (mode: JailMode) => ExecutorPlacement = jailPlacement;

/** The walls the executor stands behind under `mode`. */
export function wallsOf(placement: ExecutorPlacement): Walls {
  return {
    isolate: true,
    jail: placement.jailed
      ? { up: true, kind: 'bubblewrap', seccomp: placement.seccomp }
      : { up: false, reason: placement.reason },
  };
}

/**
 * Starts the executor process: `node <flags> <entry>` inside the jail (bubblewrap, see
 * jail/bwrap.ts) or, when `placement` says it is not jailed, as a plain child. The caller's
 * `stdio` from index 3 on (the channel, the started-mark file) is passed on as it is; the
 * executor's stdout is ignored (over stdio serve the host's stdout carries MCP), and its stderr
 * (V8's fatal messages, which can quote plugin function names) reaches the host's stderr with its
 * control characters escaped.
 */
export function spawnExecutor(
  entry: string,
  placement: ExecutorPlacement,
  extra: readonly ('pipe' | 'ignore' | number)[],
): ChildProcess {
  const stdio: ('pipe' | 'ignore' | number)[] = ['ignore', 'ignore', 'pipe', ...extra];
  let child: ChildProcess;
  if (!placement.jailed) {
    child = spawn(process.execPath, [...NODE_FLAGS, entry], { stdio });
  } else {
    const program = placement.seccomp ? seccompProgram() : undefined;
    const spec = executorJail(entry, program !== undefined);
    // bubblewrap reads the filter from this pipe and closes it before the executor starts.
    while (stdio.length < SECCOMP_FD) stdio.push('ignore');
    if (program !== undefined) stdio[SECCOMP_FD] = 'pipe';
    const script = realpathSync(entry);
    child = spawn(
      placement.bwrap,
      [...bwrapArgs(spec), process.execPath, ...NODE_FLAGS, script],
      // bubblewrap's own environment is what its PID 1 keeps: nothing of the host's either.
      { stdio, env: { ...spec.env } },
    );
    if (program !== undefined) {
      const pipe = (child.stdio as unknown as (NodeJS.WritableStream | null)[])[SECCOMP_FD];
      pipe?.on('error', () => {});
      pipe?.end(program);
    }
  }
  forwardStderr(child);
  return child;
}

/** The executor's stderr on the host's, line by line, control characters escaped. */
function forwardStderr(child: ChildProcess): void {
  const stream = child.stderr;
  if (stream === null) return;
  stream.setEncoding('utf8');
  let partial = '';
  stream.on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) process.stderr.write(`${escapeControls(line)}\n`);
    // A line that never ends must not grow without bound.
    if (partial.length > 64 * 1024) {
      process.stderr.write(`${escapeControls(partial)}\n`);
      partial = '';
    }
  });
  stream.on('end', () => {
    if (partial !== '') process.stderr.write(`${escapeControls(partial)}\n`);
  });
  stream.on('error', () => {});
}

/**
 * How a jailed executor ended, as the host says it: bubblewrap passes on a signal that killed
 * the executor as exit code 128 + its number.
 */
export function endedAs(code: number | null, signal: NodeJS.Signals | null, jailed: boolean): string {
  if (signal !== null) return `signal ${signal}`;
  if (jailed && code !== null && code > 128) {
    const name = Object.entries(constants.signals).find(([, n]) => n === code - 128)?.[0];
    if (name !== undefined) return `signal ${name}`;
  }
  return `exit code ${code}`;
}
