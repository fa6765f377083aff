import * as path from 'node:path';
import type { Readable } from 'node:stream';
import { StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { clip } from '../../util/text.js';
import { checkedFetch } from './remote-fetch.js';
import { ServerJail } from './server-jail.js';
import type { ChannelPlace, McpServerConfig } from './types.js';

/** How many stderr lines of a stdio server are kept, and how long each may be. */
const STDERR_LINES = 8;
const STDERR_LINE_CHARS = 300;
/** The longest the bridge waits for a dead server's stderr to drain before it reports the death. */
const STDERR_DRAIN_MS = 250;

/** One connection's transport, with what the bridge wants to know about it beside the protocol. */
export interface Channel {
  readonly kind: 'stdio' | 'http';
  readonly transport: Transport;
  /** A stdio server's jail (what it runs in, what it was refused). */
  readonly jail?: ServerJail;
  /** The child's pid (stdio, once spawned). */
  pid(): number | undefined;
  /** The last lines the server wrote to stderr, oldest first (stdio only). */
  stderrTail(): readonly string[];
  /** Resolves once the server's stderr has ended, or after a short bound: read the tail after it. */
  drained(): Promise<void>;
}

/** Keeps the last lines of a stream; lines are cut to a length, a partial last line counts. */
function tailOf(
  stream: Readable | null,
  onLine?: (line: string) => void,
): { lines: () => string[]; ended: Promise<void> } {
  const lines: string[] = [];
  let partial = '';
  const push = (line: string) => {
    const trimmed = line.trimEnd();
    if (trimmed === '') return;
    onLine?.(trimmed);
    lines.push(clip(trimmed, STDERR_LINE_CHARS));
    if (lines.length > STDERR_LINES) lines.shift();
  };
  const ended = new Promise<void>((resolve) => {
    if (stream === null) return resolve();
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      const parts = (partial + chunk).split('\n');
      partial = parts.pop() ?? '';
      // A server that writes megabytes without a newline must not grow the buffer forever.
      if (partial.length > STDERR_LINE_CHARS * 4) partial = partial.slice(-STDERR_LINE_CHARS);
      for (const part of parts) push(part);
    });
    stream.once('end', () => resolve());
    stream.once('close', () => resolve());
    stream.once('error', () => resolve());
  });
  return { lines: () => (partial === '' ? [...lines] : [...lines, partial].slice(-STDERR_LINES)), ended };
}

function bounded(promise: Promise<void>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref();
    void promise.then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * Opens the transport for one server. Stdio servers run with the SDK's minimal inherited
 * environment (HOME, LOGNAME, PATH, SHELL, TERM, USER; never the host's secrets) plus the configured
 * `env`, in `cwd` resolved against the project root; their stderr is piped and its tail kept.
 */
export function openChannel(name: string, config: McpServerConfig, place: ChannelPlace): Channel {
  const { root } = place;
  if ('url' in config) {
    // Its host passes ctx.fetch's address rule on every request (remote-fetch.ts).
    const transport = new StreamableHTTPClientTransport(new URL(config.url), {
      requestInit: { headers: { ...config.headers } },
      fetch: checkedFetch(name, config.net ?? []),
    });
    return {
      kind: 'http',
      transport,
      pid: () => undefined,
      stderrTail: () => [],
      drained: () => Promise.resolve(),
    };
  }
  const serverJail = new ServerJail(name, config, place);
  const jailed = serverJail.transport();
  const transport =
    jailed ??
    new StdioClientTransport({
      command: config.command,
      args: [...(config.args ?? [])],
      env: { ...getDefaultEnvironment(), ...config.env },
      cwd: path.resolve(root, config.cwd ?? '.'),
      stderr: 'pipe',
    });
  // Both transports hand out their stderr before `start()`, so no early line is lost; a jailed
  // server's lines are read for what its jail refused.
  const tail = tailOf(
    transport.stderr as Readable | null,
    jailed === undefined ? undefined : (line) => serverJail.judge(line),
  );
  return {
    kind: 'stdio',
    transport,
    jail: serverJail,
    pid: () => transport.pid ?? undefined,
    stderrTail: tail.lines,
    drained: () => bounded(tail.ended, STDERR_DRAIN_MS),
  };
}

/** `text`, followed by what its jail refused and the server's last stderr lines, when there are any. */
export function withStderr(text: string, channel: Channel): string {
  const refused = channel.jail?.since(0) ?? [];
  const lines = channel.stderrTail();
  const said = refused.length === 0 ? text : `${text}; ${refused.join('; ')}`;
  return lines.length === 0 ? said : `${said}; last stderr: ${lines.join(' | ')}`;
}
