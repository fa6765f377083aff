/**
 * Runs the built `toolhost` command as a user would: a real process on a real project folder.
 * `npm run build` must have run (the root `npm test` does it first).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CLI = path.join(REPO, 'packages/host/dist/cli/main.js');
export const FIXTURES = path.join(REPO, 'test/fixtures/plugins');

/** The `default` bearer token of the project at `root` (a server made it on start). */
export function projectToken(root: string): string {
  const file = JSON.parse(readFileSync(path.join(root, '.toolhost', 'serve-tokens.json'), 'utf8')) as {
    tokens: Record<string, string>;
  };
  return file.tokens.default ?? '';
}

/** The SDK client transport's options that send the project's token. */
export function withToken(root: string): { requestInit: RequestInit } {
  return { requestInit: { headers: { authorization: `Bearer ${projectToken(root)}` } } };
}

/** The runner's environment without colour settings or vitest's variables; `extra` sets (or, undefined, removes) more. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of [
    'FORCE_COLOR',
    'NO_COLOR',
    'NODE_OPTIONS',
    'VITEST',
    'VITEST_WORKER_ID',
    'VITEST_POOL_ID',
  ]) {
    delete env[key];
  }
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

export interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `toolhost ...args` to completion (killed after `timeoutMs`, which fails the run loudly);
 * `stdin`, when given, is written to its standard input.
 */
export function toolhost(
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; stdin?: string } = {},
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: options.cwd ?? REPO,
      env: options.env ?? cleanEnv(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    // Closed at once without `stdin`: the command reads end of file, as from /dev/null.
    child.stdin.end(options.stdin);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const timeoutMs = options.timeoutMs ?? 60_000;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`toolhost ${args.join(' ')} did not exit in ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** In-process runs one at a time: a run may move this process's working folder. */
let inProcessTurn: Promise<unknown> = Promise.resolve();

/**
 * Runs `toolhost ...args` in this process: the CLI's own `run` (what the built bin calls), with an
 * output that collects what each stream is written (escaped as on a pipe: no terminal, no colour).
 * No process start, and the command's modules are the TypeScript sources. For tests of what a
 * command prints for its arguments, in `cwd` (default: this process's, the repository, as
 * `toolhost()`'s). Runs wait for each other, since `cwd` is the process's. The command sees this
 * process's environment and no standard input, so a test that needs `env` or `stdin`, and the
 * tests of the process itself (exit on a signal, the bin, the snapshot restart), keep `toolhost()`.
 */
export function toolhostInProcess(args: readonly string[], options: { cwd?: string } = {}): Promise<Run> {
  const turn = inProcessTurn.then(async () => {
    const [{ run }, { outputFor }] = await Promise.all([
      import('../../packages/host/src/cli/run.js'),
      import('../../packages/host/src/cli/io.js'),
    ]);
    const written = { stdout: '', stderr: '' };
    const collect = (stream: 'stdout' | 'stderr') => {
      const sink = (text: string) => {
        written[stream] += text;
        return true;
      };
      return outputFor({ write: sink as NodeJS.WriteStream['write'] }, {});
    };
    const before = process.cwd();
    if (options.cwd !== undefined) process.chdir(options.cwd);
    try {
      const code = await run(args, { out: collect('stdout'), err: collect('stderr') });
      return { code, ...written };
    } finally {
      process.chdir(before);
    }
  });
  inProcessTurn = turn.catch(() => {});
  return turn;
}

/** A temp project: `plugins/<name>/` copied from each fixture or example plugin, and an optional config. */
export async function project(
  plugins: readonly (string | { from: string; as?: string })[] = [],
  config?: unknown,
): Promise<{ root: string; dispose: () => Promise<void> }> {
  const root = await mkdtemp(path.join(tmpdir(), 'toolhost-cli-'));
  await mkdir(path.join(root, 'plugins'));
  for (const plugin of plugins) {
    const from = typeof plugin === 'string' ? path.join(FIXTURES, plugin) : plugin.from;
    const as = typeof plugin === 'string' ? plugin : (plugin.as ?? path.basename(plugin.from));
    await cp(from, path.join(root, 'plugins', as), {
      recursive: true,
      filter: (file) => path.relative(from, file).split(path.sep)[0] !== 'test',
    });
  }
  if (config !== undefined) {
    await writeFile(path.join(root, 'toolhost.config.json'), JSON.stringify(config, null, 2));
  }
  return { root, dispose: () => rm(root, { recursive: true, force: true }) };
}

/**
 * Collects a stream's text and waits for a pattern in it. Fails loudly, with everything read so
 * far, when the pattern does not appear in time or the process exits first.
 */
export class StreamWatch {
  #text = '';
  #waiters = new Set<() => void>();
  #ended = false;

  constructor(
    readonly name: string,
    stream: NodeJS.ReadableStream,
  ) {
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      this.#text += chunk;
      for (const waiter of [...this.#waiters]) waiter();
    });
    stream.on('end', () => {
      this.#ended = true;
      for (const waiter of [...this.#waiters]) waiter();
    });
  }

  get text(): string {
    return this.#text;
  }

  /** Resolves with the first match of `pattern` in the text after `from` (default: all of it). */
  waitFor(pattern: RegExp, { timeoutMs = 60_000, from = 0 } = {}): Promise<RegExpExecArray> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const match = pattern.exec(this.#text.slice(from));
        if (match !== null) {
          done();
          resolve(match);
        } else if (this.#ended) {
          done();
          reject(new Error(`${this.name} ended without ${pattern}; it printed:\n${this.#text}`));
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`${this.name}: no ${pattern} within ${timeoutMs} ms; it printed:\n${this.#text}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.#waiters.delete(check);
      };
      this.#waiters.add(check);
      check();
    });
  }
}

export interface Running {
  readonly child: ChildProcess;
  readonly stdout: StreamWatch;
  readonly stderr: StreamWatch;
  /** Sends `signal` and resolves with the exit code (fails if it does not exit in time). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts a long-running command (`dev`, `serve --http`, `npm start`). */
export function start(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; group?: boolean } = {},
): Running {
  const child = spawn(command, args, {
    cwd: options.cwd ?? REPO,
    env: options.env ?? cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so stop() reaches the grandchildren too (npm → sh → node).
    detached: options.group === true,
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    stdout: new StreamWatch(`${path.basename(command)} ${args.join(' ')} (stdout)`, child.stdout),
    stderr: new StreamWatch(`${path.basename(command)} ${args.join(' ')} (stderr)`, child.stderr),
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) {
        if (options.group === true && child.pid !== undefined) process.kill(-child.pid, signal);
        else child.kill(signal);
      }
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          if (options.group === true && child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
          else child.kill('SIGKILL');
          reject(new Error(`${command} ${args.join(' ')} did not exit within 30 s of ${signal}`));
        }, 30_000);
      });
      try {
        return await Promise.race([exited, timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** Starts the built CLI. */
export function startToolhost(
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
) {
  return start(process.execPath, [CLI, ...args], options);
}

/**
 * `toolhost serve --http 0 --no-watch` on `root`, `flags` added; `url` resolves with its MCP
 * address once it listens (await it inside the `try` whose `finally` stops the server).
 */
export function serveOverHttp(root: string, flags: readonly string[] = []) {
  const server = startToolhost(['serve', '--http', '0', '--no-watch', ...flags, '--root', root]);
  const url = server.stderr
    .waitFor(/MCP streamable HTTP at (http:\/\/127\.0\.0\.1:\d+\/mcp)/)
    .then(([, found = '']) => found);
  // Awaited by the test; a server stopped first must not leave an unhandled rejection behind.
  url.catch(() => {});
  return { server, url };
}

/**
 * The SDK's stdio client transport for `toolhost serve --no-watch [flags] --root ROOT`, in a clean
 * environment, and its stderr watched (connect a client to `transport`).
 */
export function serveOverStdio(root: string, flags: readonly string[] = []) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'serve', '--no-watch', ...flags, '--root', root],
    env: cleanEnv() as Record<string, string>,
    stderr: 'pipe',
  });
  const stderr = new StreamWatch(
    'toolhost serve (stderr)',
    transport.stderr as unknown as NodeJS.ReadableStream,
  );
  return { transport, stderr };
}

/** Any ANSI escape sequence. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: detecting escapes is the point.
export const ANSI = /\x1b\[/;
