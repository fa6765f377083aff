import { type ChildProcess, spawn } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { constants } from 'node:os';
import { withoutStrayDescriptors } from '../jail/descriptors.js';
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
 * `--no-node-snapshot`: isolated-vm's README (7.0.1 too) requires it on Node ≥ 20 (host/inline-check.ts).
 * No `--max-semi-space-size` any more: on Node 20 a 64 MB young generation saved a quarter of the
 * executor's CPU at 5,000 calls in flight; re-measured on Node 24.21 (two interleaved runs of 6
 * and 12 bursts of 20,000 echo calls at 5,000 in flight, executor CPU from /proc): 56.0 vs 52.5
 * and 59.5 vs 62.0 µs per call with and without it, ranges overlapping, same peak RSS: V8 12 sizes
 * its young generation well enough on its own.
 */
const NODE_FLAGS = ['--no-node-snapshot'];

/** How the executor process is started: jailed, or why not. */
export type ExecutorPlacement = JailPlacement;

/** Where the executor goes under `mode` (the one rule of `sandbox.jail`, jail/placement.ts). */
export const executorPlacement: (mode: JailMode) => ExecutorPlacement = jailPlacement;

/**
 * The placement under `mode`, found out when first asked for: the probe runs bubblewrap and the
 * Node binary's loader (≈ 45 ms, blocking), which a host that starts from its manifest cache
 * and spawns no executor yet need not wait for (warm start of 100 plugins: 250-300 -> 170-190 ms).
 */
export function placementWhenNeeded(mode: JailMode): () => ExecutorPlacement {
  let placed: ExecutorPlacement | undefined;
  return () => {
    placed ??= executorPlacement(mode);
    return placed;
  };
}

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
      // bubblewrap's own environment is what its PID 1 keeps: nothing of the host's either; and
      // no descriptor the host inherited reaches the jail (jail/descriptors.ts).
      { stdio: withoutStrayDescriptors(stdio), env: { ...spec.env } },
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
