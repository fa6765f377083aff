export type { CodeModeSession } from '../core/dispatch/session.js';
export { runCode } from './runner.js';
export { accessor, signatureOf, typeOf } from './signatures.js';
export { CodeModeSource } from './source.js';
export { codeModeRegistryTools, codeModeTools, DESCRIBE_TOOLS, RUN_CODE } from './tools.js';
export type { CodeLimitName, CodeModeLimits, CodeOutcome, CodeToolReply } from './types.js';
