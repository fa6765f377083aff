import type { InputIssue } from '../../types.js';
import { messageOf } from '../../util/errors.js';
import { withoutHostPaths } from '../../util/host-paths.js';

/** Thrown by an executor that validates elsewhere (inside an isolate) when the input is invalid. */
export interface InvalidInputError extends Error {
  readonly code: 'invalid-input';
  readonly issues: readonly InputIssue[];
}

export function invalidInput(issues: readonly InputIssue[]): InvalidInputError {
  return Object.assign(new Error('invalid input'), { code: 'invalid-input' as const, issues });
}

/** Checks the code, not the class: the error may come from any copy of this module. */
export function isInvalidInputError(error: unknown): error is InvalidInputError {
  return (
    error instanceof Error &&
    (error as { code?: unknown }).code === 'invalid-input' &&
    Array.isArray((error as { issues?: unknown }).issues)
  );
}

/** How an executor's own limit or failure ended a call, as the wrapper reports it. */
export type StoppedStatus = 'blocked' | 'cancelled' | 'executor-threw' | 'limit-exceeded' | 'timeout';

/** Thrown by an executor that stopped a call itself (a plugin's limit), so the status says which. */
export interface CallStoppedError extends Error {
  readonly code: 'call-stopped';
  readonly status: StoppedStatus;
}

export function callStopped(status: StoppedStatus, message: string): CallStoppedError {
  return Object.assign(new Error(message), { code: 'call-stopped' as const, status });
}

/** Checks the code, not the class. */
export function isCallStopped(error: unknown): error is CallStoppedError {
  return error instanceof Error && (error as { code?: unknown }).code === 'call-stopped';
}

/**
 * What the model reads of a thrown error: its message without the absolute host paths Node's
 * errors carry, except a path the model wrote itself (in the call's input).
 */
export function failureText(error: unknown, input: unknown): string {
  return withoutHostPaths(messageOf(error), () => {
    try {
      return JSON.stringify(input) ?? '';
    } catch {
      return '';
    }
  });
}
