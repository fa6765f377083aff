import type { CodeOutcome, CodeRunOptions } from '../sandbox/types.js';

export type { CodeModeLimits } from '../config/limits.js';
export type { CodeLimitName, CodeOutcome, CodeRunOptions, CodeToolReply } from '../sandbox/types.js';

/**
 * Where a session's scripts run: the host's sandbox (`Sandbox.runScript`), so a script's isolate
 * is placed as plugins' are, in the executor process or (`sandbox: 'inline'`) in the host's.
 */
export type CodeRunner = (source: string, options: CodeRunOptions) => Promise<CodeOutcome>;
