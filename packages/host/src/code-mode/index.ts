export { runCode } from '../sandbox/script-runner.js';
export { accessor, signatureOf, typeOf } from './signatures.js';
export { CodeModeSource } from './source.js';
export {
  type CodePlacement,
  codeModeRegistryTools,
  codeModeTools,
  DESCRIBE_TOOLS,
  RUN_CODE,
} from './tools.js';
export type {
  CodeLimitName,
  CodeModeLimits,
  CodeModeSession,
  CodeOutcome,
  CodeRunner,
  CodeRunOptions,
  CodeToolReply,
} from './types.js';
