import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ToolResult } from '@toolhost/plugin-sdk';
import { type BuiltinToolsOptions, createBuiltinTools } from '../../../src/sources/builtin/index.js';
import type { ExecutionContext, RegisteredTool } from '../../../src/types.js';

const noop = () => {};

/** A call context with a fresh signal and silent logger; `overrides` replace any part. */
export function makeCtx(overrides: Partial<ExecutionContext> = {}): ExecutionContext {
  return {
    toolUseId: 'toolu_test',
    sessionId: 'session_test',
    signal: new AbortController().signal,
    log: { debug: noop, info: noop, warn: noop, error: noop },
    progress: noop,
    ...overrides,
  };
}

/** Calls a tool the way the host does: validate the input, then run with the parsed value. */
export async function callTool(
  tool: RegisteredTool,
  input: unknown,
  ctx: ExecutionContext = makeCtx(),
): Promise<ToolResult> {
  const check = tool.executor.validateInput?.(input);
  if (check === undefined) throw new Error(`${tool.descriptor.name} has no validateInput`);
  if (!check.ok)
    throw new Error(`invalid input: ${check.issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`);
  return tool.executor.run(check.value, ctx);
}

/** The text of a result's single text block. */
export function textOf(result: ToolResult): string {
  const [block] = result.content;
  if (block?.type !== 'text') throw new Error('expected a text block');
  return block.text;
}

export const SECRET = 'TOP SECRET outside the workspace\n';

/**
 * A temp folder with a workspace `root/` and a sibling `outside/` holding `secret.txt` and
 * `dir/secret.txt`. Inside the root: `link-file` → outside/secret.txt, `link-dir` → outside/,
 * `dangling` → outside/created.txt (which does not exist).
 */
export interface Sandbox {
  readonly base: string;
  readonly root: string;
  readonly outside: string;
  /** The built-in tools over `root`, by name. */
  tools(options?: Omit<BuiltinToolsOptions, 'root'>): Map<string, RegisteredTool>;
  /** Calls the named built-in (built with `options`) with `input`. */
  call(
    name: string,
    input: unknown,
    options?: Omit<BuiltinToolsOptions, 'root'>,
    ctx?: ExecutionContext,
  ): Promise<ToolResult>;
  /** Every file under `outside/` with its content, to prove nothing there changed. */
  snapshotOutside(): Promise<Record<string, string>>;
  cleanup(): Promise<void>;
}

export async function makeSandbox(): Promise<Sandbox> {
  const base = await fs.mkdtemp(path.join(os.tmpdir(), 'toolhost-builtins-'));
  const root = path.join(base, 'root');
  const outside = path.join(base, 'outside');
  await fs.mkdir(root);
  await fs.mkdir(path.join(outside, 'dir'), { recursive: true });
  await fs.writeFile(path.join(outside, 'secret.txt'), SECRET);
  await fs.writeFile(path.join(outside, 'dir', 'secret.txt'), SECRET);
  await fs.symlink(path.join(outside, 'secret.txt'), path.join(root, 'link-file'));
  await fs.symlink(outside, path.join(root, 'link-dir'));
  await fs.symlink(path.join(outside, 'created.txt'), path.join(root, 'dangling'));
  const tools = (options: Omit<BuiltinToolsOptions, 'root'> = {}) =>
    new Map(createBuiltinTools({ root, ...options }).map((tool) => [tool.descriptor.name, tool]));
  return {
    base,
    root,
    outside,
    tools,
    async call(name, input, options, ctx) {
      const tool = tools(options).get(name);
      if (tool === undefined) throw new Error(`no tool named ${name}`);
      return callTool(tool, input, ctx);
    },
    snapshotOutside: () => snapshot(outside),
    cleanup: () => fs.rm(base, { recursive: true, force: true }),
  };
}

async function snapshot(dir: string, prefix = ''): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    const rel = `${prefix}${entry.name}`;
    if (entry.isDirectory()) Object.assign(files, await snapshot(full, `${rel}/`));
    else
      files[rel] = entry.isSymbolicLink() ? `-> ${await fs.readlink(full)}` : await fs.readFile(full, 'utf8');
  }
  return files;
}

/** `node -e <script>` as an exec input, so tests run the same Node that runs them. */
export function nodeScript(script: string, cwd?: string): { command: string; args: string[]; cwd?: string } {
  return { command: process.execPath, args: ['-e', script], ...(cwd === undefined ? {} : { cwd }) };
}

/** Whether a process is still running. */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  return true;
}
