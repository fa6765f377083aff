import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { PassThrough, type Readable, type Writable } from 'node:stream';
import { LineReader } from './stdio-lines.js';

/**
 * Answers a 2025-11-25 stdio client at once, before the host is loaded: `toolhost serve` spends
 * most of its start importing its modules (the MCP SDK, zod, the sources) and loading the
 * project, and clients give up or log errors meanwhile (the AI SDK's discover probe waits 1 s).
 * This module imports nothing but Node's and the line reader (stdio-lines.ts, which imports
 * nothing): it reads the client's first lines, answers
 * `initialize`, `ping` and `tools/list` (from the list the last serve of this project sent, kept
 * in `.toolhost/serve-tools.json` and used only while the config file and toolhost are the same),
 * and keeps every other message. When the host is up, `handover` gives the SDK's transport a
 * stream that replays the client's `initialize` (so the server knows the client: its name and
 * capabilities; that response is dropped, the client has one) and everything kept, then the rest
 * of stdin. A list that differs from the one answered is followed by `list_changed`. A first
 * message other than `initialize` (a 2026-07-28 client) turns it off: the host answers it all.
 */

/** The protocol revisions an `initialize` may ask for, newest first (the SDK's legacy ones). */
export const EARLY_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;

/** What the server announces, the same as `createMcpServer`'s. */
export const EARLY_CAPABILITIES = { tools: { listChanged: true }, logging: {}, resources: {} } as const;

/** The file keeping the last served list, under the project root. */
export function servedToolsFile(root: string): string {
  return path.join(root, '.toolhost', 'serve-tools.json');
}

/** What the kept list is valid for: this toolhost and this config file as it is now. */
export function servedToolsKey(version: string, configFile: string): string {
  try {
    const stat = statSync(configFile);
    return `${version}:${configFile}:${stat.size}:${stat.mtimeMs}`;
  } catch {
    return `${version}:${configFile}:none`;
  }
}

/** Keeps `tools` as the list to answer with at the next start; never throws. */
export function keepServedTools(root: string, key: string, tools: readonly unknown[]): void {
  const file = servedToolsFile(root);
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify({ key, tools }));
    renameSync(temporary, file);
  } catch {
    // Only the next start's early list is lost.
  }
}

function keptTools(root: string, key: string): unknown[] | undefined {
  try {
    const kept = JSON.parse(readFileSync(servedToolsFile(root), 'utf8')) as {
      key?: unknown;
      tools?: unknown;
    };
    return kept.key === key && Array.isArray(kept.tools) ? kept.tools : undefined;
  } catch {
    return undefined;
  }
}

type Message = { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };

/** What the host's stdio server needs from the early answers. */
export interface Handover {
  /** The client's messages to read: the replayed ones, then the rest of stdin. */
  readonly stdin: Readable;
  /** The id of the replayed `initialize`, whose response must not reach the client again. */
  readonly initializeId?: string | number;
  /** The list the client was answered with, if it was: compared with the host's. */
  readonly answeredTools?: readonly unknown[];
}

export interface EarlyStdio {
  /**
   * Resolves when loading the host may start: importing it blocks this thread for its whole
   * length, and nothing is answered meanwhile. So first the client's opening is answered: its
   * `tools/list` (or a request only the host can answer, or no `tools/list` within 100 ms of the
   * `initialize` answer, or no `initialize` within 200 ms).
   */
  settled(): Promise<void>;
  /** Stops answering and hands the connection over (call once, when the host is up). */
  handover(): Handover;
}

/** How long the opening may take before the host is loaded all the same (see `settled`). */
const WAIT_FOR_INITIALIZE_MS = 200;
const WAIT_FOR_LIST_MS = 100;

/** Starts answering on `stdin`/`stdout` for the project at `root`. */
export function startEarlyStdio(options: {
  readonly root: string;
  readonly key: string;
  readonly version: string;
  readonly stdin?: Readable;
  readonly stdout?: Writable;
}): EarlyStdio {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const tools = keptTools(options.root, options.key);
  const kept: string[] = [];
  let initialize: string | undefined;
  let initialized: string | undefined;
  let initializeId: string | number | undefined;
  let answeredTools: readonly unknown[] | undefined;
  let off = false;
  /** The bytes after the last newline read: a line's start, perhaps ending inside a character. */
  const lines = new LineReader();
  let settle!: () => void;
  const settledPromise = new Promise<void>((resolve) => {
    settle = resolve;
  });
  let timer = setTimeout(settle, WAIT_FOR_INITIALIZE_MS);
  const answer = (id: unknown, result: unknown) =>
    stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id, result })}\n`);

  /** True when `line` was answered here (or is replayed on its own); false: keep it. */
  const answered = (line: string): boolean => {
    let message: Message;
    try {
      message = JSON.parse(line) as Message;
    } catch {
      off = true; // not ours to judge: the host answers it
      return false;
    }
    if (initialize === undefined) {
      if (
        message.method !== 'initialize' ||
        (typeof message.id !== 'string' && typeof message.id !== 'number')
      ) {
        off = true;
        return false;
      }
      const asked = (message.params as { protocolVersion?: unknown } | undefined)?.protocolVersion;
      const known = EARLY_PROTOCOL_VERSIONS.find((v) => v === asked);
      initialize = line;
      initializeId = message.id;
      clearTimeout(timer);
      timer = setTimeout(settle, WAIT_FOR_LIST_MS);
      answer(message.id, {
        protocolVersion: known ?? EARLY_PROTOCOL_VERSIONS[0],
        capabilities: EARLY_CAPABILITIES,
        serverInfo: { name: 'toolhost', version: options.version },
      });
      return true;
    }
    if (message.method === 'notifications/initialized' && initialized === undefined) {
      initialized = line;
      return true;
    }
    if (message.method === 'ping' && message.id !== undefined) {
      answer(message.id, {});
      return true;
    }
    if (message.method === 'tools/list' && tools !== undefined && kept.length === 0) {
      answeredTools = tools;
      answer(message.id, { tools });
      settle();
      return true;
    }
    return false;
  };
  const onLine = (line: string) => {
    if (line.trim() === '') return;
    if (off || !answered(line)) {
      kept.push(line);
      settle(); // only the host answers it
    }
  };
  const onData = (chunk: Buffer | string) => {
    for (const line of lines.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)) onLine(line);
  };
  stdin.on('data', onData);

  return {
    settled: () =>
      settledPromise.then(() => {
        clearTimeout(timer);
        // The answers written: out of the process before the thread is busy.
        return new Promise<void>((resolve) => setImmediate(resolve));
      }),
    handover() {
      clearTimeout(timer);
      stdin.off('data', onData);
      stdin.pause();
      const replay = new PassThrough();
      for (const line of [initialize, initialized, ...kept])
        if (line !== undefined) replay.write(`${line}\n`);
      const held = lines.held;
      if (held !== undefined) replay.write(held);
      stdin.pipe(replay);
      return {
        stdin: replay,
        ...(initializeId === undefined ? {} : { initializeId }),
        ...(answeredTools === undefined ? {} : { answeredTools }),
      };
    },
  };
}
