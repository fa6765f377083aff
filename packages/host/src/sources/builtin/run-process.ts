import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { type JailLaunch, spawnJailed } from '../../jail/index.js';

/** How to run one program. */
export interface RunProcessOptions {
  readonly command: string;
  readonly args: readonly string[];
  /** A confined, real directory. */
  readonly cwd: string;
  readonly timeoutMs: number;
  /** Cap on the bytes of stdout and stderr kept, combined. */
  readonly maxOutputBytes: number;
  readonly signal: AbortSignal;
  /** Called once the process has started. */
  readonly onSpawn?: (pid: number) => void;
  /** Start it in this jail (`command`, `args` and `cwd` are then inside it) instead of as a plain child. */
  readonly jail?: JailLaunch;
  /** The whole environment of an unjailed process; default the host's. */
  readonly env?: NodeJS.ProcessEnv;
}

/** How a run ended. */
export interface ProcessOutcome {
  /** The exit code, or null when a signal ended the process. */
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Output bytes dropped because the cap was reached. */
  readonly omittedBytes: number;
  /** The timeout passed and the process was killed. */
  readonly timedOut: boolean;
  /** The call's signal aborted and the process was killed. */
  readonly aborted: boolean;
}

// On POSIX the child leads its own process group, so a timeout kills its children too; otherwise a
// grandchild holding the pipes open would keep the call waiting after its parent died.
const ownGroup = process.platform !== 'win32';

/**
 * Runs a program without a shell: arguments reach it as they are, with no expansion, globbing or
 * command chaining. Resolves when its output streams close; rejects only when it cannot be started.
 */
export function runProcess(options: RunProcessOptions): Promise<ProcessOutcome> {
  return new Promise((resolve, reject) => {
    const child = (
      options.jail === undefined
        ? spawn(options.command, [...options.args], {
            cwd: options.cwd,
            shell: false,
            stdio: ['ignore', 'pipe', 'pipe'],
            detached: ownGroup,
            windowsHide: true,
            ...(options.env === undefined ? {} : { env: options.env }),
          })
        : spawnJailed(options.jail, ['ignore', 'pipe', 'pipe'], ownGroup)
    ) as ChildProcessWithoutNullStreams;
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let kept = 0;
    let omittedBytes = 0;
    let timedOut = false;
    let aborted = false;
    let exited = false;

    const collect = (into: Buffer[]) => (chunk: Buffer) => {
      const room = options.maxOutputBytes - kept;
      // Past the cap the pipe is still drained, so a chatty process never blocks on a full pipe.
      if (room < chunk.length) omittedBytes += chunk.length - Math.max(room, 0);
      if (room > 0) {
        const part = chunk.subarray(0, room);
        into.push(part);
        kept += part.length;
      }
    };
    child.stdout.on('data', collect(stdout));
    child.stderr.on('data', collect(stderr));

    const kill = () => {
      try {
        if (ownGroup && child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
        else child.kill('SIGKILL');
      } catch {
        // Already gone.
      }
      // A descendant that left the group may still hold the pipes; stop waiting for them.
      if (exited) destroyStreams();
    };
    const destroyStreams = () => {
      child.stdout.destroy();
      child.stderr.destroy();
    };
    const onAbort = () => {
      aborted = true;
      kill();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, options.timeoutMs);
    options.signal.addEventListener('abort', onAbort, { once: true });
    if (options.signal.aborted) onAbort();
    const cleanup = () => {
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
    };

    child.once('spawn', () => {
      if (child.pid !== undefined) options.onSpawn?.(child.pid);
    });
    child.once('exit', () => {
      exited = true;
      if (timedOut || aborted) destroyStreams();
    });
    child.once('error', (error) => {
      cleanup();
      reject(error);
    });
    child.once('close', (exitCode, signal) => {
      cleanup();
      resolve({
        exitCode,
        signal,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
        omittedBytes,
        timedOut,
        aborted,
      });
    });
  });
}
