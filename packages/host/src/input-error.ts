import type { InputIssue } from './types.js';

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
