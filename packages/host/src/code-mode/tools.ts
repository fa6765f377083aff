import type { AvailabilityExpression, ToolDescriptor, ToolResult } from '@toolhost/plugin-sdk';
import { defineTool } from '@toolhost/plugin-sdk';
import * as z from 'zod';
import { type CodeModeLimits, resolveLimits } from '../config/limits.js';
import {
  CODE_MODE_CONTEXT_KEY,
  CODE_MODE_SOURCE_ID,
  DESCRIBE_TOOLS,
  RUN_CODE,
} from '../core/register/code-mode.js';
import { createToolIndex, type SearchableTool } from '../core/search/index.js';
import { blockAsText, errorResult } from '../core/wrap/results.js';
import { scriptLimitHint } from '../sandbox/script-outcomes.js';
import { inProcessTool } from '../sources/in-process.js';
import type { RegisteredTool } from '../types.js';
import { accessor, signatureOf } from './signatures.js';
import type { CodeModeSession, CodeOutcome, CodeRunner, CodeToolReply } from './types.js';

export { DESCRIBE_TOOLS, RUN_CODE };

/** Visible only where code mode is on: a session in code mode, or the host with `tools.codeMode`. */
const IN_CODE_MODE: AvailabilityExpression = { kind: 'context', key: CODE_MODE_CONTEXT_KEY, equals: true };

/** A descriptor as the search index takes it. */
function searchable(tool: ToolDescriptor): SearchableTool {
  return {
    name: tool.name,
    ...(tool.title === undefined ? {} : { title: tool.title }),
    description: tool.description,
    inputSchema: tool.inputSchema as Record<string, unknown>,
  };
}

/** What a script's `await tools.x(...)` resolves with: the structured result, else its text, else its blocks. */
function scriptValueOf(result: ToolResult): unknown {
  if (result.structuredContent !== undefined) return result.structuredContent;
  if (result.content.every((block) => block.type === 'text'))
    return result.content.map(blockAsText).join('\n');
  return result.content;
}

function textOf(result: ToolResult): string {
  return result.content.map(blockAsText).join('\n');
}

/** Line breaks a model or a client may render as one: every one of them gets the fence after it. */
const LINE_BREAK = /\r\n?|[\n\u2028\u2029]/g;

/**
 * The script's own text (console output, a thrown message), every line behind `| `: the script
 * cannot print a line that reads as the host's `Returned:` block or a note of the host's.
 */
function fenced(text: string): string {
  return `| ${text.replace(LINE_BREAK, '\n| ')}`;
}

/**
 * The run's outcome as the one result the model sees: what the script logged (fenced), then what
 * it returned as JSON (which has no raw line breaks inside a string) or what it threw (fenced).
 */
function resultOf(outcome: CodeOutcome): ToolResult {
  if (outcome.kind === 'limit') return errorResult(`run_code stopped: ${outcome.message}`);
  const parts: string[] = [];
  if (outcome.log !== '' || outcome.droppedLogChars > 0) {
    const log = outcome.log.endsWith('\n') ? outcome.log.slice(0, -1) : outcome.log;
    const dropped =
      outcome.droppedLogChars > 0
        ? `\n[${outcome.droppedLogChars} more characters of console output dropped]`
        : '';
    parts.push(`Console (each line starts with "| "):\n${log === '' ? '' : fenced(log)}${dropped}`);
  }
  if (outcome.kind === 'threw') {
    parts.push(`The script threw:\n${fenced(outcome.error)}`);
    return errorResult(parts.join('\n'));
  }
  const value = outcome.value === undefined ? '(nothing)' : JSON.stringify(outcome.value, null, 2);
  parts.push(`Returned:\n${value}`);
  return { content: [{ type: 'text', text: parts.join('\n') }] };
}

/** A script over `maxSourceChars`, refused before any isolate (or the executor) is handed it. */
function sourceTooLarge(code: string, limits: CodeModeLimits): ToolResult | undefined {
  if (code.length <= limits.maxSourceChars) return undefined;
  return errorResult(
    `run_code refused the script: it is ${code.length} characters, over its limit ${scriptLimitHint('maxSourceChars', limits)}`,
  );
}

const RUN_CODE_DESCRIPTION = [
  'Run JavaScript (the body of an async function) in a sandbox where every tool is an async function:',
  '`const issue = await tools.github_create_issue({ title: "x" }); return issue.number;`.',
  'Find tools and their signatures with describe_tools. Only what you return and console.log reaches you.',
].join(' ');

/**
 * The two tools of a code-mode session: `run_code`, whose scripts run where `runScript` places
 * them (the host's sandbox), and `describe_tools` to find what to call.
 */
export function codeModeTools(session: CodeModeSession, runScript: CodeRunner): readonly RegisteredTool[] {
  const callTool = async (name: string, inputJson: string, signal: AbortSignal): Promise<CodeToolReply> => {
    if (name === RUN_CODE || name === DESCRIBE_TOOLS) {
      return { ok: false, message: `Tool "${name}" cannot be called from run_code` };
    }
    const outcome = await session.call(name, JSON.parse(inputJson), { signal });
    if (outcome.result.isError === true) return { ok: false, message: textOf(outcome.result) };
    return { ok: true, json: JSON.stringify(scriptValueOf(outcome.result)) ?? 'null' };
  };
  const runCodeTool = defineTool({
    name: RUN_CODE,
    description: RUN_CODE_DESCRIPTION,
    availability: IN_CODE_MODE,
    input: z.object({
      code: z.string().min(1).describe('The body of an async function; `return` its result'),
    }),
    async execute({ code }, ctx) {
      const limits = session.limits();
      return (
        sourceTooLarge(code, limits) ??
        resultOf(await runScript(code, { limits, callTool, signal: ctx.signal as AbortSignal }))
      );
    },
  });
  const describeTool = defineTool({
    name: DESCRIBE_TOOLS,
    description:
      'Find tools for run_code: TypeScript signatures of the tools that match a query, or of the tools named.',
    availability: IN_CODE_MODE,
    // Right after run_code, which the model should read first.
    sortKey: `${RUN_CODE}.1`,
    input: z.object({
      query: z.string().optional().describe('What you want to do, in words'),
      names: z.array(z.string()).optional().describe('Exact tool names to describe'),
      limit: z.number().int().min(1).max(20).optional().describe('Most tools to return (default 5)'),
    }),
    async execute({ query, names, limit }) {
      const tools = session.callableDescriptors();
      const byName = new Map(tools.map((tool) => [tool.name, tool]));
      const chosen: ToolDescriptor[] = [];
      const missing: string[] = [];
      for (const name of names ?? []) {
        const tool = byName.get(name);
        if (tool === undefined) missing.push(name);
        else chosen.push(tool);
      }
      if (query !== undefined && query.trim() !== '') {
        for (const hit of createToolIndex(tools.map(searchable)).search(query, limit ?? 5)) {
          const tool = byName.get(hit.name);
          if (tool !== undefined && !chosen.includes(tool)) chosen.push(tool);
        }
      }
      if (names === undefined && (query === undefined || query.trim() === '')) {
        return errorResult(
          'describe_tools needs a "query" (what you want to do) or "names" (tools to describe)',
        );
      }
      const lines = chosen.map(
        (tool) => `${signatureOf(tool)}\n// call: await ${accessor(tool.name)}(input)`,
      );
      if (missing.length > 0) lines.push(`Not callable in this session: ${missing.join(', ')}`);
      if (chosen.length === 0) lines.push(`No tool matches; ${tools.length} tools are callable.`);
      return { content: [{ type: 'text', text: lines.join('\n\n') }] };
    },
  });
  return [runCodeTool, describeTool].map((definition) =>
    withOwnDeadline(
      inProcessTool(definition, { source: 'builtin', sourceId: CODE_MODE_SOURCE_ID, groups: ['code-mode'] }),
      session,
    ),
  );
}

/** A session of none: what the Map's entries would run if called outside a session (never, by design). */
const DETACHED: CodeModeSession = {
  callableDescriptors: () => [],
  call: async () => ({
    result: errorResult('run_code runs only inside a session in code mode'),
    status: 'blocked',
    durationMs: 0,
  }),
  limits: () => resolveLimits(undefined).codeMode,
};

/** Where the Map's own `run_code` would run a script: nowhere (a session runs its own copy). */
const NO_PLACEMENT: CodeRunner = async () => ({
  kind: 'limit',
  limit: 'crashed',
  message: 'run_code runs only inside a session in code mode',
});

/** Where a session's scripts run and under which limits, read when a session binds its copy. */
export interface CodePlacement {
  /** The host's sandbox (`Sandbox.runScript`). */
  readonly runScript: CodeRunner;
  /** `limits.codeMode` in force. */
  readonly limits: () => CodeModeLimits;
}

/**
 * Code mode's tools as the Map holds them, for policy, the plan and listings. With `placement`
 * each entry binds to the session that calls it (`bindToSession`): that session runs its own
 * copy (see {@link codeModeTools}), with the same descriptor, whose scripts call its tools.
 * Without it (no sandbox to run scripts in) a session has no copy and refuses them.
 */
export function codeModeRegistryTools(placement?: CodePlacement): readonly RegisteredTool[] {
  return codeModeTools(DETACHED, NO_PLACEMENT).map((entry) => {
    if (placement === undefined) return entry;
    const name = entry.descriptor.name;
    return {
      ...entry,
      bindToSession: (session) => {
        const own = codeModeTools({ ...session, limits: placement.limits }, placement.runScript).find(
          (tool) => tool.descriptor.name === name,
        ) as RegisteredTool;
        return { ...own, descriptor: entry.descriptor };
      },
    };
  });
}

/**
 * `run_code` stops itself at `limits.codeMode.timeoutMs` (and says so); the wrapper's deadline
 * becomes a backstop behind it instead of cutting it at the call limit first.
 */
function withOwnDeadline(tool: RegisteredTool, session: CodeModeSession): RegisteredTool {
  if (tool.descriptor.name !== RUN_CODE) return tool;
  return {
    ...tool,
    timeout: { ms: session.limits().timeoutMs, setting: 'limits.codeMode.timeoutMs', selfEnforced: true },
  };
}
