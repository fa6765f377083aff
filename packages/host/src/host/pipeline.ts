/**
 * The reload pipeline: every change of the tools goes through the same stages, top to bottom.
 *
 *   1. settle   the config (re-read the file when asked; an invalid one stops here, reported)
 *   2. refresh  the sources the change concerns (all of them on a settings change)
 *   3. build    the whole Map from every source's contributions (registry: policy, overrides)
 *   4. plan     it (availability) and diff it against the plan in force
 *   5. swap     the snapshot sessions read at each call; the replaced Map lets go once drained
 *   6. emit     the change to listeners
 *
 * One way in, `run`, and one run at a time (a lock), so a rebuild never sees a source half
 * refreshed. Changes that need no refresh (a tool added through the API, settings given in code,
 * a source that changed on its own) run 3–6 only, in turn with the others. The API's changes
 * (`immediate`), with no run in progress or waiting, are swapped in at once (a synchronous swap
 * cannot interleave with anything), so `host.addTool` still changes the Map before it returns; a
 * source's own change always waits its turn, never swapping inside the callback that reported it.
 */
import type { ToolPlan } from '@toolhost/plugin-sdk';
import type { HostSnapshot } from '../core/dispatch/session.js';
import { planRegistry } from '../core/filter/plan.js';
import { buildRegistry } from '../core/register/registry.js';
import type { MapHold, RefreshReason, SourceAdapter, ToolHooks } from '../types.js';
import { messageOf } from '../util/errors.js';
import { Listeners } from '../util/listeners.js';
import { AsyncMutex } from '../util/lock.js';
import { diffPlans } from './diff.js';
import type { EffectiveSettings } from './settings.js';
import type { HostChange, HostError } from './types.js';

/** What one run is for. */
export interface RunRequest {
  /** Stage 1: re-read the config and settle the settings; resolves with the error that stops the run, if any. */
  readonly settle?: () => Promise<HostError | undefined>;
  /** Stage 2: the reason the sources are refreshed for; none: a change that needs no refresh. */
  readonly reason?: RefreshReason;
  /** What set the run off, for the change event: `config`, `plugins:<id>,…`, `reload`. */
  readonly cause: string;
  /** With no `settle` nor `reason`: swap at once when nothing runs or waits (a caller of the API expects it). */
  readonly immediate?: boolean;
}

/** A snapshot built from the sources, with what it keeps alive and its plan (kept for the next diff). */
interface Built {
  readonly snapshot: HostSnapshot;
  readonly holds: readonly MapHold[];
  readonly plan: ToolPlan;
}

/** Stage 3: the Map and everything a session reads with it, from every source as it is now. */
function build(
  version: number,
  sources: readonly SourceAdapter[],
  settings: EffectiveSettings,
  hostHooks: readonly ToolHooks[],
  track: (holds: readonly MapHold[]) => () => void,
  extras: SnapshotExtras,
): Built {
  const holds = sources.flatMap((source) => (source.hold === undefined ? [] : [source.hold()]));
  const facts = Object.assign({}, ...sources.map((source) => source.facts?.() ?? {}));
  const contributions = sources.flatMap((source) => source.contributions());
  const snapshot: HostSnapshot = {
    version,
    registry: buildRegistry(contributions, settings.policy),
    sources: contributions,
    policy: settings.policy,
    availability: { ...settings.availability, ...facts },
    limits: settings.limits,
    codeMode: settings.codeMode,
    approvals: settings.approvals,
    ...(settings.principals.length === 0 ? {} : { principals: settings.principals }),
    hooks: [...hostHooks, ...sources.flatMap((source) => source.hooks?.() ?? [])],
    track: () => track(holds),
    ...extras(),
  };
  return { holds, snapshot, plan: planOf(snapshot) };
}

/** What a snapshot carries beside the Map, read at each build (the skills catalog). */
export type SnapshotExtras = () => Pick<HostSnapshot, 'skills'>;
const NO_EXTRAS: SnapshotExtras = () => ({});

/** The plan of a snapshot without any session context. */
export function planOf(snapshot: HostSnapshot): ToolPlan {
  return planRegistry(snapshot.registry, snapshot.availability);
}

/**
 * Runs the stages for a host: owns the snapshot in force, the lock, the listeners and the count
 * of calls in flight (so `close()` can drain them).
 */
export class ReloadPipeline {
  readonly #sources: readonly SourceAdapter[];
  readonly #hostHooks: () => readonly ToolHooks[];
  readonly #settings: () => EffectiveSettings;
  readonly #extras: SnapshotExtras;
  readonly #lock = new AsyncMutex();
  readonly changes = new Listeners<HostChange>();
  readonly errors = new Listeners<HostError>();
  #current: Built;
  /** Runs holding or waiting for the lock: while there is one, a change that needs no refresh waits too. */
  #queued = 0;
  #inFlight = 0;
  #drained: (() => void) | undefined;
  #closed = false;

  /** `settings` and `hostHooks` are read at every build: the host owns them. */
  constructor(
    sources: readonly SourceAdapter[],
    settings: () => EffectiveSettings,
    hostHooks: () => readonly ToolHooks[],
    extras: SnapshotExtras = NO_EXTRAS,
  ) {
    this.#sources = sources;
    this.#settings = settings;
    this.#hostHooks = hostHooks;
    this.#extras = extras;
    this.#current = build(0, sources, settings(), hostHooks(), (holds) => this.#track(holds), extras);
  }

  get snapshot(): HostSnapshot {
    return this.#current.snapshot;
  }

  /** The plan of the snapshot in force, without any session context. */
  get plan(): ToolPlan {
    return this.#current.plan;
  }

  /**
   * The one way into a swap: stages 1–6 (3–6 without a `reason`). Never rejects: a fault outside
   * any plugin or server is reported as a `load` error.
   */
  run(request: RunRequest): Promise<HostChange | HostError> {
    const { settle, reason, cause } = request;
    // Nothing holds or waits for the lock, and nothing here awaits: this is the lock taken and let go in one turn.
    if (request.immediate === true && settle === undefined && reason === undefined && this.#queued === 0)
      return Promise.resolve(this.#guarded(cause, () => this.#swap(cause, performance.now())));
    this.#queued += 1;
    return this.#lock.run(async () => {
      try {
        const started = performance.now();
        const stopped = await settle?.();
        if (stopped !== undefined) {
          this.errors.emit(stopped);
          return stopped;
        }
        if (reason !== undefined) {
          const changed = await Promise.all(this.#sources.map((source) => source.refresh(reason)));
          if (reason.kind === 'start' && !changed.includes(true)) return this.#unchanged(cause);
        }
        return this.#swap(cause, started);
      } catch (fault) {
        return this.#fault(cause, fault);
      } finally {
        this.#queued -= 1;
      }
    });
  }

  /** `step`'s change, or its fault as a `load` error. */
  #guarded(cause: string, step: () => HostChange): HostChange | HostError {
    try {
      return step();
    } catch (fault) {
      return this.#fault(cause, fault);
    }
  }

  /** A fault outside any plugin or server, reported: the host keeps serving the Map it has. */
  #fault(cause: string, fault: unknown): HostError {
    const error: HostError = { kind: 'load', message: `rebuild (${cause}) failed: ${messageOf(fault)}` };
    this.errors.emit(error);
    return error;
  }

  /** A start that changed nothing: no swap, and no event (the Map of version 0 stands). */
  #unchanged(cause: string): HostChange {
    const snapshot = this.#current.snapshot;
    return {
      version: snapshot.version,
      added: [],
      removed: [],
      changed: [],
      newlyHidden: [],
      newlyVisible: [],
      diagnostics: snapshot.registry.diagnostics,
      cause,
      durationMs: 0,
      swapMs: 0,
    };
  }

  /** New host hooks apply to the next call of every session, without a new Map. */
  refreshHooks(): void {
    const snapshot = this.#current.snapshot;
    const hooks = [...this.#hostHooks(), ...this.#sources.flatMap((source) => source.hooks?.() ?? [])];
    this.#current = { ...this.#current, snapshot: { ...snapshot, hooks } };
  }

  #swap(cause: string, started: number): HostChange {
    const swapStarted = performance.now();
    const replaced = this.#current;
    this.#current = build(
      replaced.snapshot.version + 1,
      this.#sources,
      this.#settings(),
      this.#hostHooks(),
      (holds) => this.#track(holds),
      this.#extras,
    );
    if (this.#closed) this.markClosed();
    for (const hold of replaced.holds) hold.replaced();
    const change: HostChange = {
      version: this.#current.snapshot.version,
      ...diffPlans(replaced.plan, this.#current.plan),
      diagnostics: this.#current.snapshot.registry.diagnostics,
      cause,
      durationMs: performance.now() - started,
      swapMs: performance.now() - swapStarted,
    };
    this.changes.emit(change);
    return change;
  }

  /** A call admitted by a Map: counted for `drain()`, and held by that Map's holds. */
  #track(holds: readonly MapHold[]): () => void {
    this.#inFlight += 1;
    for (const hold of holds) hold.enter();
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      for (const hold of holds) hold.exit();
      this.#inFlight -= 1;
      if (this.#inFlight === 0) this.#drained?.();
    };
  }

  /** Resolves once no call is in flight, or after `ms`. */
  async drain(ms: number): Promise<void> {
    if (this.#inFlight === 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.#drained = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /**
   * From now on sessions read a snapshot marked closed, and refuse calls: the host is shutting
   * down. Calls already running go on (`drain`). A rebuild in progress is not undone, but nothing
   * runs on what it swaps in: the mark is kept across it.
   */
  markClosed(): void {
    this.#closed = true;
    this.#current = { ...this.#current, snapshot: { ...this.#current.snapshot, closed: true } };
  }

  /** Waits for the run in progress, then closes every source. */
  close(): Promise<void> {
    return this.#lock.run(async () => {
      for (const source of this.#sources) await source.close();
    });
  }
}
