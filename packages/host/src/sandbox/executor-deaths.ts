import { crashed, type Executor, MAX_SENDS, notStarted, type Pending } from './process-requests.js';
import { scriptExecutorDied } from './script-outcomes.js';
import type { SandboxCrash } from './types.js';

/** What the sandbox tells `settleRequestsOf` of itself. */
export interface DeathContext {
  /** How long a new process may take to say it is ready, ms (for the message). */
  readonly startupMs: number;
  /** How long a busy process may stay silent before the heartbeat kills it, ms (for the message). */
  silenceAllowedMs(): number;
  /** Hears of a death charged to one plugin. */
  emitCrash(crash: SandboxCrash): void;
}

/**
 * The requests of an executor process that has ended (not by the sandbox's close): those it had
 * started end with an outcome naming the death; those it had not are left unsent (`sentTo`
 * cleared) for the next process, unless cancelled meanwhile or sent too often. A death is charged
 * to a plugin only when that plugin alone ran there, no script did and the host did not kill the
 * process itself.
 */
export function settleRequestsOf(
  executor: Executor,
  pendings: Map<number, Pending>,
  ctx: DeathContext,
): void {
  const how = executor.ended ?? 'an unknown cause';
  // Read once it has exited: nothing can add to the count any more.
  const started = executor.startedMark === undefined ? executor.sent : executor.startedMark.read();
  executor.startedMark?.close();
  const running: Pending[] = [];
  const unstarted: Pending[] = [];
  for (const pending of pendings.values()) {
    if (pending.sentTo !== executor) continue;
    (pending.seq < started ? running : unstarted).push(pending);
  }
  const fail = (pending: Pending, message: string) => {
    pendings.delete(pending.id);
    pending.resolve(crashed(message));
  };

  if (!executor.ready) {
    // It never came up: trying again at once would likely loop. Its requests fail; the next
    // request starts a new process.
    const why =
      executor.killedBy === 'startup'
        ? `it did not start within ${ctx.startupMs} ms`
        : `it ended (${how}) before it was ready`;
    for (const pending of unstarted) fail(pending, `the executor process could not start: ${why}`);
    // It may have read requests before its 'ready' frame left (that frame is flushed after the
    // turn in which the host's first frames can already arrive): those ran there, and end here.
    for (const pending of running)
      fail(pending, `the executor process died (${how}) while this call was running`);
  } else {
    const plugins = new Set(running.flatMap((p) => (p.plugin === undefined ? [] : [p.plugin.id])));
    const scripts = running.filter((p) => p.script !== undefined).length;
    const died =
      executor.killedBy === 'heartbeat'
        ? `the executor process stopped answering for ${ctx.silenceAllowedMs()} ms and was killed`
        : executor.killedBy === 'protocol'
          ? `the executor process sent a malformed message (${executor.protocolError}) and was killed`
          : `the executor process died (${how})`;
    const withScripts = scripts > 0 ? ` (a run_code script was running there too)` : '';
    for (const pending of running) {
      if (pending.script !== undefined) {
        pendings.delete(pending.id);
        pending.resolve({
          kind: 'reply',
          reply: scriptExecutorDied(
            how,
            died,
            executor.killedBy !== undefined,
            pending.script.options.limits,
          ),
        });
        continue;
      }
      const others = plugins.size > 1 ? ` (plugins running there: ${[...plugins].join(', ')})` : '';
      fail(
        pending,
        `${died} while this call was running${others}${withScripts}; the next call starts a new one`,
      );
    }
    for (const pending of unstarted) {
      if (pending.cancel?.aborted === true) {
        pendings.delete(pending.id);
        pending.resolve(notStarted);
      } else if (pending.sends >= MAX_SENDS)
        fail(pending, `${died}; ${pending.sends} executor processes died before this call could start`);
      else pending.sentTo = undefined;
    }
    // Charged only when one plugin was running there, no code-mode script was, and the host did
    // not kill the process itself: an innocent neighbour is never blamed. A script is charged
    // nothing: it is not a plugin (there is nothing to quarantine), each run_code is a new
    // script in a fresh isolate, and its own run already ended with the limit named.
    const [only] = plugins;
    if (plugins.size === 1 && only !== undefined && scripts === 0 && executor.killedBy === undefined) {
      const version = Math.max(...running.flatMap((p) => (p.plugin?.id === only ? [p.plugin.version] : [])));
      ctx.emitCrash({ pluginId: only, version, message: `${died} while it was running` });
    }
  }
}

/** Who hears of the deaths charged to one plugin (`Sandbox.onCrash`). */
export class CrashListeners {
  readonly #listeners = new Set<(crash: SandboxCrash) => void>();

  /** Adds one; returns its disposer. */
  add(listener: (crash: SandboxCrash) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  emit(crash: SandboxCrash): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(crash);
      } catch {
        // A listener's fault must not stop the others or the restart.
      }
    }
  }
}
