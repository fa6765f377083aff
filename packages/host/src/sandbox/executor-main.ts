/**
 * The executor process: holds every plugin isolate and every code-mode script's isolate (in
 * `process` mode), so that a plugin or a script that makes V8 abort kills only this process,
 * which the host restarts. Started by `ProcessSandbox` with
 * `--no-node-snapshot`; speaks the messages of `ipc.ts` in frames (`channel.ts`) over fd 3.
 */

import { Socket } from 'node:net';
import { HotLoop } from '../util/hot-loop.js';
import { processMemory } from '../util/memory.js';
import { type Frame, FrameReader, FrameWriter } from './channel.js';
import { type FromExecutor, isRequest, type ReplyOutcome, type ToExecutor } from './ipc.js';
import { type CallHandlers, IsolatePool } from './isolate-pool.js';
import type { IsolateOutcome } from './plugin-isolate.js';
import { type PreludeSource, preludeLoader } from './prelude.js';
import type { PreludeKind } from './prelude-kind.js';
import { liveScriptIsolates, runCode } from './script-runner.js';
import { StartedMarkWriter } from './started-mark.js';
import type { CodeModeLimits, CodeOutcome, CodeToolReply } from './types.js';

// No catastrophic-error handler here: isolated-vm runs it on the main thread and parks the
// failing thread until it has, so an out-of-memory abort inside a sync entry (which runs on the
// main thread) would wait for itself forever. Without one, V8's own out-of-memory abort ends this
// process at once (the host restarts it), and the count of requests read (started-mark.ts) says
// which calls were running here.
/** The preludes the host sends (this process builds none: its jail holds no bundler). */
const preludeSources = new Map<
  PreludeKind,
  { promise: Promise<string>; settle?: (code: string | Error) => void }
>();
const preludeOf: PreludeSource = (kind) => preludeWait(kind).promise;
function preludeWait(kind: PreludeKind) {
  let wait = preludeSources.get(kind);
  if (wait === undefined) {
    let settle: ((code: string | Error) => void) | undefined;
    const promise = new Promise<string>((resolve, reject) => {
      settle = (code) => (typeof code === 'string' ? resolve(code) : reject(code));
    });
    wait = { promise, ...(settle === undefined ? {} : { settle }) };
    preludeSources.set(kind, wait);
  }
  return wait;
}
const loadPrelude = preludeLoader(preludeOf);
const pool = new IsolatePool(loadPrelude);
/**
 * What the host's abort frame does to each request that waits: a call's `ctx.signal` aborts in its
 * isolate (or, still waiting for one, it never starts: the pool's `abort`); a script's run stops.
 */
const aborts = new Map<number, (reason: string) => void>();
const capabilityWaits = new Map<number, (reply: string) => void>();
/** Scripts' tool calls waiting for the host's answer, by request id. */
const toolWaits = new Map<number, (reply: CodeToolReply) => void>();
let nextRequest = 1;

const channel = new Socket({ fd: 3, readable: true, writable: true });
/** Replies leave in groups while a read's requests run: 16 first (see `FrameWriter`). */
const REPLY_GROUP = 16;
const writer = new FrameWriter(channel, setImmediate, REPLY_GROUP);
/** Polls for the host's next request a while after each read and answer (util/hot-loop.ts); the host sets its limit. */
let hot = new HotLoop(0);

function send(message: FromExecutor, body?: string): void {
  writer.send(JSON.stringify(message), body);
}

function reply(id: number, outcome: ReplyOutcome): void {
  send({ t: 'reply', id, outcome });
}

/** Where one request's log lines, progress and capability requests go: frames naming it. */
class Outbound implements CallHandlers {
  readonly #id: number;

  constructor(id: number) {
    this.#id = id;
  }

  log(level: string, message: string, data: string): void {
    send({ t: 'log', id: this.#id, level, message, data });
  }

  progress(done: number, total: number, message: string): void {
    send({ t: 'progress', id: this.#id, done, total, message });
  }

  request(capability: string, args: string): Promise<string> {
    return new Promise<string>((resolve) => {
      const requestId = nextRequest++;
      capabilityWaits.set(requestId, resolve);
      send({ t: 'capability', id: this.#id, requestId, capability }, args);
    });
  }
}

/** Sends a call's or hook's outcome: a reply's text goes on as the isolate wrote it; only the host parses it. */
function answer(id: number, outcome: IsolateOutcome<string>): void {
  if (outcome.kind === 'reply') writer.send(`{"t":"reply","id":${id}}`, outcome.reply);
  else reply(id, outcome);
  hot.keep();
}

/**
 * Runs a call or hook. One answered within its sync entry is answered in this same turn, with no
 * promise made; only one that waits is listened to for an abort (none can arrive before then).
 */
function run(message: ToExecutor & { t: 'call' | 'hook' }, body: string): void {
  const { id, callId } = message;
  const name = message.t === 'call' ? message.tool : message.phase;
  const outcome = pool.text(message.t, message.key, name, callId, body, new Outbound(id));
  if (!(outcome instanceof Promise)) {
    answer(id, outcome);
    return;
  }
  // Hooks have no caller to cancel them: the host sends no abort for one.
  if (message.t === 'call') aborts.set(id, (reason) => pool.abort(callId, reason));
  outcome.then(
    (settled) => {
      aborts.delete(id);
      answer(id, settled);
    },
    (error: unknown) => {
      aborts.delete(id);
      fault(error);
    },
  );
}

/**
 * Runs a code-mode script here; each of its tool calls goes to the host (which runs it through
 * the invoking session's wrapper) and its answer comes back as a `tool-reply`. The runner is the
 * one the host uses for `inline` placement, with every limit checked here as there.
 */
function runScript(id: number, limits: CodeModeLimits, source: string): void {
  const cancel = new AbortController();
  aborts.set(id, (reason) => cancel.abort(reason));
  const callTool = (name: string, inputJson: string, signal: AbortSignal) =>
    new Promise<CodeToolReply>((resolve) => {
      const requestId = nextRequest++;
      // The run ended first (a limit, a cancel): no answer is awaited any more.
      const drop = () => {
        toolWaits.delete(requestId);
        resolve({ ok: false, message: 'the script has ended' });
      };
      signal.addEventListener('abort', drop, { once: true });
      toolWaits.set(requestId, (reply) => {
        signal.removeEventListener('abort', drop);
        resolve(reply);
      });
      send({ t: 'tool', id, requestId, name }, inputJson);
    });
  runCode(source, { limits, callTool, signal: cancel.signal })
    .catch(
      (error: unknown): CodeOutcome => ({
        kind: 'limit',
        limit: 'crashed',
        message: `the script's isolate could not run: ${error instanceof Error ? error.message : String(error)}`,
      }),
    )
    .then((outcome) => {
      aborts.delete(id);
      writer.send(`{"t":"reply","id":${id}}`, JSON.stringify(outcome));
    });
}

/** A fault of this process's own code: said on stderr; the request it hit gets no reply. */
function fault(error: unknown): void {
  process.stderr.write(`toolhost executor: ${error instanceof Error ? error.stack : String(error)}\n`);
}

function handle(message: ToExecutor, body: string): void {
  switch (message.t) {
    case 'describe':
      pool
        .describe(body, message.configJson, message.limits)
        .then((outcome) => reply(message.id, outcome), fault);
      return;
    case 'load':
      pool.load(message.key, body, message.limits);
      // This process compiles the base prelude as it starts: a spare for the first call costs
      // only its isolate. (An inline host makes one only when it warms for serving.)
      pool.spare.ahead(() => loadPrelude(body), message.limits);
      return;
    case 'unload':
      pool.unload(message.key);
      return;
    case 'call':
    case 'hook':
      run(message, body);
      return;
    case 'script':
      runScript(message.id, message.limits, body);
      return;
    case 'abort':
      aborts.get(message.id)?.(message.reason);
      return;
    case 'tool-reply': {
      const resolve = toolWaits.get(message.requestId);
      toolWaits.delete(message.requestId);
      resolve?.(message.ok ? { ok: true, json: body } : { ok: false, message: body });
      return;
    }
    case 'capability-reply': {
      const resolve = capabilityWaits.get(message.requestId);
      capabilityWaits.delete(message.requestId);
      resolve?.(body);
      return;
    }
    case 'stats':
      reply(message.id, {
        kind: 'stats',
        stats: {
          ...pool.stats(),
          scripts: liveScriptIsolates(),
          memory: processMemory(),
          polling: { micros: hot.maxMicros, turns: hot.turns },
        },
      });
      return;
    case 'isolates':
      pool.configure(message.settings);
      return;
    case 'poll':
      hot = new HotLoop(message.micros);
      return;
    case 'prelude': {
      const wait = preludeWait(message.kind);
      wait.settle?.(message.error === undefined ? body : new Error(message.error));
      wait.settle = undefined;
      // Every plugin needs the base prelude (compiled once per process, ≈ 0.1 s): compiled now,
      // while the first requests are on their way. A failure surfaces at the first use.
      if (message.kind === 'base') loadPrelude('').catch(() => undefined);
      return;
    }
    case 'ping':
      send({ t: 'pong', id: message.id });
      return;
  }
}

/** Frames of the chunk being read, handled once all of them are counted. */
const inbox: Frame[] = [];
/** Requests of that chunk (the messages the host counts as sent: see `isRequest` in ipc.ts). */
let requests = 0;
const startedMark = new StartedMarkWriter();

const reader = new FrameReader(
  (frame) => {
    if (isRequest(frame.head as unknown as ToExecutor)) requests += 1;
    inbox.push(frame);
  },
  (error) => {
    // The host is the only writer: a broken stream means the channel cannot be trusted.
    process.stderr.write(`toolhost executor: ${error.message}\n`);
    process.exit(70);
  },
);

channel.on('data', (chunk: Buffer) => {
  hot.heard();
  reader.push(chunk);
  // Counted before any of these requests runs: the process dying under one comes after the
  // count that names it started.
  startedMark.add(requests);
  requests = 0;
  for (const frame of inbox) {
    try {
      handle(frame.head as unknown as ToExecutor, frame.body);
    } catch (error) {
      fault(error);
    }
  }
  inbox.length = 0;
  // The answers of sync entries leave now, not at the end of the turn (≈ 2 µs later on every
  // sequential call's path); answers settled later in this turn still go together then.
  writer.flush();
  // The host's next request is read without waking this process if it comes soon.
  hot.keep();
});

// The host going away (its end of the channel closed) ends this process; no isolate outlives it.
const exit = () => {
  pool.close();
  process.exit(0);
};
channel.on('end', exit);
channel.on('error', exit);
send({ t: 'ready' });
