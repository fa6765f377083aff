/**
 * The one error class of capability requests. Its message travels into the plugin's isolate, so
 * it never carries a host path, a stack or a raw system error: only what the plugin wrote and
 * what config must say.
 */

/** Codes of {@link CapabilityError}, sorted. */
export type CapabilityErrorCode =
  | 'aborted'
  | 'control-file'
  | 'denied'
  | 'failed'
  | 'invalid-args'
  | 'limit-exceeded'
  | 'timeout'
  | 'unknown-capability';

export class CapabilityError extends Error {
  override readonly name = 'CapabilityError';
  readonly code: CapabilityErrorCode;
  /** The capability requested, e.g. `fs.readFile`. */
  readonly capability: string;
  /**
   * What plugin code reads as `error.code`: the system code of a failed file operation (`ENOENT`,
   * `EISDIR`, `ENOTDIR`, `EEXIST`, `ENOTEMPTY`, …), `not-granted` for a denial, else {@link code}.
   */
  readonly pluginCode: string;

  constructor(code: CapabilityErrorCode, capability: string, message: string, systemCode?: string) {
    super(message);
    this.code = code;
    this.capability = capability;
    this.pluginCode = systemCode ?? (code === 'denied' ? 'not-granted' : code);
  }
}

const CODES: Record<CapabilityErrorCode, 1> = {
  aborted: 1,
  'control-file': 1,
  denied: 1,
  failed: 1,
  'invalid-args': 1,
  'limit-exceeded': 1,
  timeout: 1,
  'unknown-capability': 1,
};

/** Checks the brand, not the class, so a second bundled copy of this module still matches. */
export function isCapabilityError(error: unknown): error is CapabilityError {
  if (!(error instanceof Error) || error.name !== 'CapabilityError') return false;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && Object.hasOwn(CODES, code);
}

export const denied = (capability: string, message: string) =>
  new CapabilityError('denied', capability, message);

/**
 * A host control file (the config, plugins/, .toolhost/, host code) refused to plugin code. A code
 * of its own rather than `not-granted`: no grant can fix it, so plugin code (or its author) must
 * not go asking for one; nor `EACCES`, which reads as a file mode the operator could change.
 */
export const controlFile = (capability: string, message: string) =>
  new CapabilityError('control-file', capability, `ctx.${capability}: ${message}`);

export const invalidArgs = (capability: string, detail: string) =>
  new CapabilityError('invalid-args', capability, `ctx.${capability} received invalid arguments: ${detail}`);

export const unknownCapability = (capability: string) =>
  new CapabilityError(
    'unknown-capability',
    capability,
    `unknown capability ${JSON.stringify(capability.slice(0, 64))}`,
  );

export const limitExceeded = (capability: string, message: string) =>
  new CapabilityError('limit-exceeded', capability, message);

export const timedOut = (capability: string, message: string) =>
  new CapabilityError('timeout', capability, message);

export const aborted = (capability: string, message: string) =>
  new CapabilityError('aborted', capability, message);

/** A failed operation; `systemCode` (`ENOENT`, …) is what plugin code reads as `error.code`. */
export const failed = (capability: string, message: string, systemCode?: string) =>
  new CapabilityError('failed', capability, message, systemCode);
