/**
 * The executor process: holds every plugin isolate, so that a plugin that makes V8 abort kills
 * only this process, which the host restarts. Started by `ProcessSandbox` with
 * `--no-node-snapshot`; speaks the messages of `ipc.ts` over the fork channel.
 */
import { loadRuntimeScript } from '../plugins/bundle.js';
import type { FromExecutor, ToExecutor } from './ipc.js';
import { type CallHandlers, IsolatePool } from './isolate-pool.js';
import { PluginIsolate } from './plugin-isolate.js';

PluginIsolate.abortOnCatastrophe = true;
const pool = new IsolatePool(loadRuntimeScript);
const aborts = new Map<number, AbortController>();
const capabilityWaits = new Map<number, (reply: string) => void>();
let nextRequest = 1;

function send(message: FromExecutor): void {
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
      pool.load(message.pluginId, message.bundle, message.limits);
      return;
    case 'unload':
      pool.unload(message.pluginId);
      return;
    case 'call': {
      const controller = new AbortController();
      aborts.set(message.id, controller);
      try {
        const outcome = await pool.call(
          message.pluginId,
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
        outcome: await pool.hook(message.pluginId, message.request, handlersFor(message.id)),
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
  handle(message).catch((error: unknown) => {
    process.stderr.write(`toolhost executor: ${error instanceof Error ? error.stack : String(error)}\n`);
  });
});
// The host going away ends this process; no isolate outlives it.
process.on('disconnect', () => {
  pool.close();
  process.exit(0);
});
