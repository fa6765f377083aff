import type { CodeModeLimits } from '../config/limits.js';
import type { CodeOutcome, CodeRunOptions } from '../sandbox/types.js';
import type { SessionBinding } from '../types.js';

export type { CodeModeLimits } from '../config/limits.js';
export type { CodeLimitName, CodeOutcome, CodeRunOptions, CodeToolReply } from '../sandbox/types.js';

/**
 * Where a session's scripts run: the host's sandbox (`Sandbox.runScript`), so a script's isolate
 * is placed as plugins' are, in the executor process or (`sandbox: 'inline'`) in the host's.
 */
export type CodeRunner = (source: string, options: CodeRunOptions) => Promise<CodeOutcome>;

/**
 * What code mode's tools need of their session: the session they are bound to (their calls go
 * through its full wrapper) and the limits of its scripts.
 */
export interface CodeModeSession extends Pick<SessionBinding, 'callableDescriptors' | 'call'> {
  limits(): CodeModeLimits;
}
