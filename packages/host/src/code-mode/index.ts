export { runCode } from './runner.js';
export { accessor, signatureOf, typeOf } from './signatures.js';
export { type CodeModeSession, codeModeTools, DESCRIBE_TOOLS, RUN_CODE } from './tools.js';
export type { CodeModeLimits, CodeOutcome, CodeToolReply } from './types.js';
