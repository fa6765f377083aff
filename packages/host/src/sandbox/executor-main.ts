/**
 * The executor process: holds every plugin isolate, so that a plugin that makes V8 abort kills
 * only this process, which the host restarts. Started by `ProcessSandbox` with
 * `--no-node-snapshot`; speaks the messages of `ipc.ts` over the fork channel.
 */

import type { FromExecutor, ToExecutor } from './ipc.js';
import { type CallHandlers, IsolatePool } from './isolate-pool.js';
import { loadRuntimeScript } from './isolate-script.js';
import { PluginIsolate } from './plugin-isolate.js';

PluginIsolate.abortOnCatastrophe = true;
const pool = new IsolatePool(loadRuntimeScript);
const aborts = new Map<number, AbortController>();
const capabilityWaits = new Map<number, (reply: string) => void>();
let nextRequest = 1;

/** Requests received and not yet acknowledged (see `started` in ipc.ts). */
let started: number[] = [];

function flushStarted(): void {
  if (started.length === 0) return;
  const ids = started;
  started = [];
  process.send?.({ t: 'started', ids } satisfies FromExecutor);
}

/** Acknowledges a request in one message per turn, and always before anything else is sent. */
function acknowledge(id: number): void {
  if (started.length === 0) queueMicrotask(flushStarted);
  started.push(id);
}

function send(message: FromExecutor): void {
  flushStarted();
  process.send?.(message);
}

function handlersFor(id: number): CallHandlers {
  return {
    log: (level, message, data) => send({ t: 'log', id, level, message, data }),
    progress: (done, total, message) => send({ t: 'progress', id, done, total, message }),
    request: (capability, args) =>
      new Promise<string>((resolve) => {
        const requestId = nextRequest++;
        capabilityWaits.set(requestId, resolve);
        send({ t: 'capability', id, requestId, capability, args });
      }),
  };
}

async function handle(message: ToExecutor): Promise<void> {
  switch (message.t) {
    case 'describe':
      send({
        t: 'reply',
        id: message.id,
        outcome: await pool.describe(message.bundle, message.configJson, message.limits),
      });
      return;
    case 'load':
      pool.load(message.key, message.bundle, message.limits);
      return;
    case 'unload':
      pool.unload(message.key);
      return;
    case 'call': {
      const controller = new AbortController();
      aborts.set(message.id, controller);
      try {
        const outcome = await pool.call(
          message.key,
          message.request,
          handlersFor(message.id),
          controller.signal,
        );
        send({ t: 'reply', id: message.id, outcome });
      } finally {
        aborts.delete(message.id);
      }
      return;
    }
    case 'hook':
      send({
        t: 'reply',
        id: message.id,
        outcome: await pool.hook(message.key, message.request, handlersFor(message.id)),
      });
      return;
    case 'abort':
      aborts.get(message.id)?.abort(message.reason);
      return;
    case 'capability-reply': {
      const resolve = capabilityWaits.get(message.requestId);
      capabilityWaits.delete(message.requestId);
      resolve?.(message.reply);
      return;
    }
    case 'count':
      send({ t: 'reply', id: message.id, outcome: { kind: 'count', count: pool.liveIsolates } });
      return;
    case 'ping':
      send({ t: 'pong', id: message.id });
      return;
  }
}

process.on('message', (message: ToExecutor) => {
  // Before the request runs: anything it makes the executor send comes after this acknowledgement.
  if ('id' in message && message.t !== 'ping' && message.t !== 'abort') acknowledge(message.id);
  handle(message).catch((error: unknown) => {
    process.stderr.write(`toolhost executor: ${error instanceof Error ? error.stack : String(error)}\n`);
  });
});
send({ t: 'ready' });
// The host going away ends this process; no isolate outlives it.
process.on('disconnect', () => {
  pool.close();
  process.exit(0);
});
