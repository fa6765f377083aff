import { type ChildProcess, fork } from 'node:child_process';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type {
  CallReply,
  CallRequest,
  DescribeReply,
  HookReply,
  HookRequest,
} from '@toolhost/plugin-sdk/protocol';
import { callHandlers } from './inline.js';
import type { FromExecutor, ToExecutor } from './ipc.js';
import type { CallHandlers } from './isolate-pool.js';
import type { CallSinks, CapabilityRunner, Sandbox, SandboxLimits, SandboxOutcome } from './types.js';

/** The executor entry: the compiled file next to this one (from sources, the built copy in dist). */
function executorEntry(): string {
  const here = fileURLToPath(import.meta.url);
  return here.endsWith('.ts')
    ? path.resolve(path.dirname(here), '../../dist/sandbox/executor-main.js')
    : path.join(path.dirname(here), 'executor-main.js');
}

/** Crashes of the executor process attributed to one plugin before it is quarantined. */
const QUARANTINE_AFTER = 3;
/** The executor must answer a ping within this while calls are in flight, or it is restarted. */
const HEARTBEAT_MS = 5_000;

interface Pending {
  readonly pluginId: string | undefined;
  readonly resolve: (outcome: SandboxOutcome<unknown> | { kind: 'count'; count: number }) => void;
  readonly handlers?: CallHandlers;
}

/**
 * Isolates in a supervised child process. A plugin that makes V8 abort (isolated-vm issues #457,
 * #527) kills only the child: the calls in flight there end with an `is_error` result, the child is
 * started again on the next call with every plugin reloaded, and a plugin that has crashed it
 * {@link QUARANTINE_AFTER} times is quarantined. Costs an IPC round trip per call.
 */
export class ProcessSandbox implements Sandbox {
  readonly mode = 'process';
  #child: ChildProcess | undefined;
  #nextId = 1;
  readonly #pending = new Map<number, Pending>();
  readonly #loaded = new Map<string, { bundle: string; limits: SandboxLimits }>();
  readonly #crashes = new Map<string, number>();
  #heartbeat: NodeJS.Timeout | undefined;
  #lastPong = Date.now();
  #closed = false;
  #killedByHeartbeat = false;

  #ensureChild(): ChildProcess {
    if (this.#child !== undefined) return this.#child;
    const child = fork(executorEntry(), [], {
      execArgv: ['--no-node-snapshot'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      serialization: 'json',
    });
    this.#child = child;
    child.on('message', (message: FromExecutor) => {
      try {
        this.#onMessage(message, child);
      } catch {
        // A host-side fault handling one message (a throwing sink) must not take the host down.
      }
    });
    child.on('exit', (code, signal) => this.#onExit(child, code, signal));
    child.on('error', () => {});
    for (const [pluginId, { bundle, limits }] of this.#loaded)
      child.send({ t: 'load', pluginId, bundle, limits } satisfies ToExecutor);
    this.#lastPong = Date.now();
    return child;
  }

  #send(message: ToExecutor): void {
    const child = this.#ensureChild();
    child.send(message);
  }

  #onMessage(message: FromExecutor, from: ChildProcess): void {
    switch (message.t) {
      case 'reply': {
        const pending = this.#pending.get(message.id);
        this.#pending.delete(message.id);
        pending?.resolve(message.outcome);
        this.#updateHeartbeat();
        return;
      }
      case 'log':
        this.#pending.get(message.id)?.handlers?.log(message.level, message.message, message.data);
        return;
      case 'progress':
        this.#pending.get(message.id)?.handlers?.progress(message.done, message.total, message.message);
        return;
      case 'capability': {
        const handlers = this.#pending.get(message.id)?.handlers;
        const reply = handlers
          ? handlers.request(message.capability, message.args)
          : Promise.resolve(
              JSON.stringify({
                ok: false,
                error: `ctx capability "${message.capability}" was used after its call ended`,
              }),
            );
        // Only to the process that asked: a restarted executor reuses request ids, and an answer
        // meant for a plugin of the old one must never resolve another plugin's request.
        void reply.then((text) => {
          if (this.#child === from && from.connected) {
            from.send({
              t: 'capability-reply',
              requestId: message.requestId,
              reply: text,
            } satisfies ToExecutor);
          }
        });
        return;
      }
      case 'pong':
        this.#lastPong = Date.now();
        return;
    }
  }

  #onExit(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.#child !== child) return;
    this.#child = undefined;
    this.#updateHeartbeat();
    const how = signal === null ? `exit code ${code}` : `signal ${signal}`;
    const failed = [...this.#pending.entries()];
    this.#pending.clear();
    const culprits = new Set(
      failed.map(([, p]) => p.pluginId).filter((id): id is string => id !== undefined),
    );
    // A crash is charged to a plugin only when it was the only one running there, and never when
    // the host itself killed an unresponsive executor: an innocent neighbour is not quarantined.
    const killedByHost = this.#killedByHeartbeat;
    this.#killedByHeartbeat = false;
    const [only] = culprits;
    if (culprits.size === 1 && only !== undefined && !killedByHost) {
      this.#crashes.set(only, (this.#crashes.get(only) ?? 0) + 1);
    }
    for (const [, pending] of failed) {
      const others = [...culprits].filter((id) => id !== pending.pluginId);
      const blame = others.length === 0 ? '' : ` (plugins running there: ${[...culprits].join(', ')})`;
      pending.resolve({
        kind: 'limit',
        limit: 'crashed',
        message: `the executor process died (${how}) while this call was running${blame}; it has been restarted`,
      });
    }
  }

  /** Pings the child while calls are in flight; a child that stops answering is killed. */
  #updateHeartbeat(): void {
    const busy = this.#pending.size > 0 && this.#child !== undefined;
    if (busy && this.#heartbeat === undefined) {
      this.#lastPong = Date.now();
      this.#heartbeat = setInterval(() => {
        if (Date.now() - this.#lastPong > HEARTBEAT_MS) {
          this.#killedByHeartbeat = true;
          this.#child?.kill('SIGKILL');
          return;
        }
        this.#child?.send({ t: 'ping', id: 0 } satisfies ToExecutor);
      }, HEARTBEAT_MS / 5);
      this.#heartbeat.unref();
    } else if (!busy && this.#heartbeat !== undefined) {
      clearInterval(this.#heartbeat);
      this.#heartbeat = undefined;
    }
  }

  #quarantined(pluginId: string): SandboxOutcome<never> | undefined {
    const crashes = this.#crashes.get(pluginId) ?? 0;
    if (crashes < QUARANTINE_AFTER) return undefined;
    return {
      kind: 'limit',
      limit: 'quarantined',
      message: `plugin "${pluginId}" is quarantined: it crashed the executor process ${crashes} times; fix it and reload`,
    };
  }

  #request<R>(
    build: (id: number) => ToExecutor,
    pluginId: string | undefined,
    handlers?: CallHandlers,
  ): Promise<R> {
    if (this.#closed)
      return Promise.resolve({ kind: 'limit', limit: 'crashed', message: 'the sandbox is closed' } as R);
    const id = this.#nextId++;
    return new Promise<R>((resolve) => {
      this.#pending.set(id, {
        pluginId,
        resolve: resolve as Pending['resolve'],
        ...(handlers ? { handlers } : {}),
      });
      this.#send(build(id));
      this.#updateHeartbeat();
    });
  }

  describe(
    bundle: string,
    configJson: string,
    limits: SandboxLimits,
  ): Promise<SandboxOutcome<DescribeReply>> {
    return this.#request((id) => ({ t: 'describe', id, bundle, configJson, limits }), undefined);
  }

  load(pluginId: string, bundle: string, limits: SandboxLimits): void {
    // Every (re)load of a plugin — new code, or an operator's reload — lifts its quarantine.
    this.#crashes.delete(pluginId);
    this.#loaded.set(pluginId, { bundle, limits });
    if (this.#child !== undefined)
      this.#child.send({ t: 'load', pluginId, bundle, limits } satisfies ToExecutor);
  }

  unload(pluginId: string): void {
    this.#loaded.delete(pluginId);
    this.#crashes.delete(pluginId);
    this.#child?.send({ t: 'unload', pluginId } satisfies ToExecutor);
  }

  call(
    pluginId: string,
    request: CallRequest,
    capabilities: CapabilityRunner,
    sinks: CallSinks,
    signal: AbortSignal,
  ): Promise<SandboxOutcome<CallReply>> {
    const quarantined = this.#quarantined(pluginId);
    if (quarantined !== undefined) return Promise.resolve(quarantined);
    if (signal.aborted) {
      return Promise.resolve({
        kind: 'limit',
        limit: 'cancelled',
        message: 'the call was cancelled before it started',
      });
    }
    let id = 0;
    const onAbort = () =>
      this.#child?.send({
        t: 'abort',
        id,
        reason: String(signal.reason ?? 'cancelled'),
      } satisfies ToExecutor);
    signal.addEventListener('abort', onAbort, { once: true });
    return this.#request<SandboxOutcome<CallReply>>(
      (assigned) => {
        id = assigned;
        return { t: 'call', id: assigned, pluginId, request };
      },
      pluginId,
      callHandlers(sinks, capabilities, signal),
    ).finally(() => signal.removeEventListener('abort', onAbort));
  }

  hook(pluginId: string, request: HookRequest, sinks: CallSinks): Promise<SandboxOutcome<HookReply>> {
    const quarantined = this.#quarantined(pluginId);
    if (quarantined !== undefined) return Promise.resolve(quarantined);
    return this.#request(
      (id) => ({ t: 'hook', id, pluginId, request }),
      pluginId,
      callHandlers(sinks, undefined, new AbortController().signal),
    );
  }

  async isolateCount(): Promise<number> {
    if (this.#child === undefined) return 0;
    const outcome = await this.#request<{ kind: 'count'; count: number }>(
      (id) => ({ t: 'count', id }),
      undefined,
    );
    return outcome.kind === 'count' ? outcome.count : 0;
  }

  /** The executor's pid, when it runs (for crash tests). */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const child = this.#child;
    if (child === undefined) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.disconnect();
    const timer = setTimeout(() => child.kill('SIGKILL'), 2_000);
    await exited;
    clearTimeout(timer);
  }
}
