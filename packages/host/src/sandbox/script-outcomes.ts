/**
 * How a code-mode run ends when its script did not end it: the words of each limit, an executor
 * process that died under a script, and a script's outcome read back from that process.
 */

import type { CodeLimitName, CodeModeLimits, CodeOutcome } from './types.js';

/** The config key that raises a code-mode limit, for breach messages. */
export function scriptLimitHint(key: keyof CodeModeLimits, limits: CodeModeLimits): string {
  return `(${key}: ${limits[key]}; raise limits.codeMode.${key} in the config to allow more)`;
}

/** A run ended by a limit. */
export function scriptLimit(limit: CodeLimitName, message: string): CodeOutcome {
  return { kind: 'limit', limit, message };
}

/** Signals V8 ends a process with on a fatal error; an out-of-memory abort is the one a script can cause. */
const V8_ABORTS = new Set(['signal SIGABRT', 'signal SIGTRAP']);

/**
 * The outcome of a run whose executor process died under it. `how` is how the process ended
 * (`signal SIGABRT`), `died` the sentence saying so, `killedByHost` whether the host killed it
 * (a heartbeat or protocol fault: then the script is not what ended it).
 */
export function scriptExecutorDied(
  how: string,
  died: string,
  killedByHost: boolean,
  limits: CodeModeLimits,
): CodeOutcome {
  const after = 'other tools keep working, and the next run_code starts in a new executor process';
  if (!killedByHost && V8_ABORTS.has(how)) {
    // isolated-vm #457, #527: past its heap limit an isolate can make V8 abort its whole process.
    return scriptLimit(
      'memoryMb',
      `the script exceeded its memory limit ${scriptLimitHint('memoryMb', limits)} and V8 ended the executor process that held it (${how}); ${after}`,
    );
  }
  return scriptLimit('crashed', `${died} while the script was running; ${after}`);
}

const KINDS = new Set(['returned', 'threw', 'limit']);
const LIMITS: Record<CodeLimitName, 1> = {
  cancelled: 1,
  cpuMs: 1,
  crashed: 1,
  maxResultChars: 1,
  maxToolCalls: 1,
  memoryMb: 1,
  timeoutMs: 1,
};

/**
 * A run's outcome as the executor process sent it, checked: a process that sends something else is
 * not trusted with the model's result.
 */
export function scriptOutcomeOf(reply: unknown): CodeOutcome {
  const outcome = reply as Partial<Record<string, unknown>> | null;
  const ok =
    typeof outcome === 'object' &&
    outcome !== null &&
    KINDS.has(outcome.kind as string) &&
    (outcome.kind === 'limit'
      ? Object.hasOwn(LIMITS, outcome.limit as string) && typeof outcome.message === 'string'
      : typeof outcome.log === 'string' &&
        typeof outcome.droppedLogChars === 'number' &&
        (outcome.kind === 'returned' || typeof outcome.error === 'string'));
  return ok
    ? (outcome as CodeOutcome)
    : scriptLimit('crashed', 'the executor process sent a malformed outcome for the script');
}
