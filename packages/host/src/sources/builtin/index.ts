import * as path from 'node:path';
import type { ToolDefinition } from '@toolhost/plugin-sdk';
import { DEFAULT_LIMITS, execDeadline } from '../../config/limits.js';
import { processSandboxOf } from '../../config/process-sandbox.js';
import type { RegisteredTool } from '../../types.js';
import { ControlGuard } from '../../workspace/control.js';
import { inProcessTool } from '../in-process.js';
import { editTool } from './edit.js';
import { execTool } from './exec.js';
import { grepTool } from './grep.js';
import { lsTool } from './ls.js';
import { readTool } from './read.js';
import type { WorkspaceSettings } from './settings.js';
import type { BuiltinToolsOptions } from './types.js';
import { writeTool } from './write.js';

export { isWorkspaceEscapeError, resolveInside, WorkspaceEscapeError } from '../../workspace/confine.js';
export type { ControlKind } from '../../workspace/control.js';
export {
  ControlFileError,
  describeControlAccess,
  isControlFileError,
} from '../../workspace/control.js';
export type {
  BuiltinToolsOptions,
  ControlFileAccess,
  ControlPaths,
  ExecOptions,
  GrepOptions,
} from './types.js';

const DEFAULT_MAX_READ_BYTES = 1024 * 1024;
// Well inside the default call timeout (30 s), so grep answers with what it found before it is cut off.
const DEFAULT_GREP_SEARCH_BUDGET_MS = 10_000;
const DEFAULT_GREP_FILE_BUDGET_MS = 500;
const DEFAULT_EXEC_MAX_OUTPUT_BYTES = 64 * 1024;

/**
 * The built-in tools, ready for the registry: `read`, `write`, `edit`, `ls` and `grep` (group `fs`),
 * confined to `options.root`; and `exec` (group `runtime`) only when `options.exec.enabled` is true.
 * The host's control files (`options.controlPaths`, by default under the root) are closed to them
 * unless `options.controlFiles` opens them.
 */
export function createBuiltinTools(options: BuiltinToolsOptions): RegisteredTool[] {
  if (typeof options.root !== 'string' || options.root === '') {
    throw new TypeError('createBuiltinTools: root must be a non-empty path');
  }
  // Fixed now, so a later process.chdir cannot move the workspace.
  const root = path.resolve(options.root);
  const control = new ControlGuard(root, options.controlPaths, options.controlFiles);
  const workspace: WorkspaceSettings = {
    root,
    maxReadBytes: positive('maxReadBytes', options.maxReadBytes, DEFAULT_MAX_READ_BYTES),
    control,
  };
  const fsTools: ToolDefinition[] = [
    readTool(workspace),
    writeTool(workspace),
    editTool(workspace),
    lsTool(workspace),
    grepTool(workspace, {
      searchBudgetMs: positive(
        'grep.searchBudgetMs',
        options.grep?.searchBudgetMs,
        DEFAULT_GREP_SEARCH_BUDGET_MS,
      ),
      fileBudgetMs: positive('grep.fileBudgetMs', options.grep?.fileBudgetMs, DEFAULT_GREP_FILE_BUDGET_MS),
    }),
  ];
  const tools = fsTools.map((definition) => inProcessTool(definition, { source: 'builtin', groups: ['fs'] }));
  const exec = options.exec;
  if (exec?.enabled === true) {
    const deadline = execDeadline(
      positive('callTimeoutMs', options.callTimeoutMs, DEFAULT_LIMITS.timeoutMs),
      exec.timeoutMs === undefined ? undefined : positive('exec.timeoutMs', exec.timeoutMs, 0),
    );
    const definition = execTool({
      root,
      timeoutMs: deadline.ms,
      maxOutputBytes: positive('exec.maxOutputBytes', exec.maxOutputBytes, DEFAULT_EXEC_MAX_OUTPUT_BYTES),
      ...(exec.allowedCommands === undefined ? {} : { allowedCommands: exec.allowedCommands }),
      control,
      jail: options.jail ?? 'auto',
      sandbox: processSandboxOf(exec.sandbox, root),
      env: options.env ?? process.env,
    });
    // exec kills its process at its own limit and says so; the wrapper keeps only a backstop.
    tools.push({
      ...inProcessTool(definition, { source: 'builtin', groups: ['runtime'] }),
      timeout: deadline,
    });
  }
  return tools;
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) {
    throw new TypeError(`createBuiltinTools: ${name} must be a positive number, got ${value}`);
  }
  return value;
}
