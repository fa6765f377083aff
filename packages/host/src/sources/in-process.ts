import {
  describeTool,
  normalizeToolReturn,
  type ToolContext,
  type ToolDefinition,
  type ToolLogger,
} from '@toolhost/plugin-sdk';
import type * as z from 'zod';
import type { ExecutionContext, InputCheck, RegisteredTool } from '../types.js';
import { sleepUnlessAborted } from '../util/sleep.js';
import { zodIssues } from '../util/zod-issues.js';
import { askThrough, elicitThrough } from './ask.js';

/** Checks a value against a zod schema, as an {@link InputCheck}. */
export function checkWithZod(schema: z.ZodType, value: unknown): InputCheck {
  const parsed = schema.safeParse(value);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, issues: zodIssues(parsed.error) };
}

function pluginOnly(name: string): never {
  throw new Error(
    `ctx.${name} is a capability of sandboxed plugins; an in-process tool uses Node's APIs directly`,
  );
}

/** In-process tools are trusted code: the capability surface of plugins does not apply to them. */
const pluginOnlyCapabilities: Pick<ToolContext, 'fetch' | 'fs' | 'env'> = {
  fetch: () => pluginOnly('fetch'),
  fs: {
    readFile: () => pluginOnly('fs'),
    writeFile: () => pluginOnly('fs'),
    readdir: () => pluginOnly('fs'),
    stat: () => pluginOnly('fs'),
    appendFile: () => pluginOnly('fs'),
    mkdir: () => pluginOnly('fs'),
    rm: () => pluginOnly('fs'),
    rename: () => pluginOnly('fs'),
  },
  env: { get: () => pluginOnly('env') },
};

/**
 * What an in-process tool's `execute` sees. Its signal is the call's, asked for only when the tool
 * reads it, so a tool that never does costs its call no AbortController.
 */
class InProcessContext implements ToolContext {
  readonly config = undefined;
  readonly fetch = pluginOnlyCapabilities.fetch;
  readonly fs = pluginOnlyCapabilities.fs;
  readonly env = pluginOnlyCapabilities.env;
  readonly #call: ExecutionContext;

  constructor(call: ExecutionContext) {
    this.#call = call;
  }

  get toolUseId(): string {
    return this.#call.toolUseId;
  }

  get log(): ToolLogger {
    return this.#call.log;
  }

  get signal(): ToolContext['signal'] {
    return this.#call.signal;
  }

  // Fields, not methods: a tool may take them out of the context (`const { progress } = ctx`).
  readonly progress = (done: number, total?: number, message?: string): void =>
    this.#call.progress(done, total, message);

  readonly sleep = (ms: number): Promise<void> => sleepUnlessAborted(ms, this.#call.signal);

  readonly ask: ToolContext['ask'] = (requests, options) =>
    askThrough(this.#call.ask, { requests, optional: options?.optional === true });

  readonly elicit: ToolContext['elicit'] = (params, key) => elicitThrough(this.#call.ask, params, key);
}

/** How an in-process tool enters the registry. */
export interface InProcessToolOptions {
  readonly source: 'builtin' | 'custom';
  /** Policy groups (`fs`, `runtime`): honoured for built-ins only. */
  readonly groups?: readonly string[];
  /** The source instance, and the prefix of the executor id; default `source` (`builtin/read`). */
  readonly sourceId?: string;
}

/**
 * Turns a trusted, in-process {@link ToolDefinition} into a {@link RegisteredTool} whose executor
 * validates with the tool's own zod schema and checks structured output against `output`.
 */
export function inProcessTool(definition: ToolDefinition, options: InProcessToolOptions): RegisteredTool {
  const isBuiltin = options.source === 'builtin';
  const sourceId = options.sourceId ?? options.source;
  const ref = { kind: 'core', executorId: `${sourceId}/${definition.name}` } as const;
  const descriptor = describeTool(definition, {
    owner: isBuiltin ? { kind: 'core' } : { kind: 'custom' },
    executor: ref,
  });
  const executor: RegisteredTool['executor'] = {
    ref,
    validateInput: (input) => checkWithZod(definition.input, input),
    async run(input, ctx) {
      const returned = await definition.execute(input as Record<string, unknown>, new InProcessContext(ctx));
      const result = normalizeToolReturn(returned);
      if (
        definition.output !== undefined &&
        result.structuredContent !== undefined &&
        result.isError !== true
      ) {
        const checked = checkWithZod(definition.output, result.structuredContent);
        if (!checked.ok) {
          const detail = checked.issues.map((i) => `${i.path}: ${i.message}`).join('; ');
          throw new Error(`structuredContent does not match the tool's output schema (${detail})`);
        }
      }
      return result;
    },
  };
  return {
    descriptor,
    source: options.source,
    sourceId,
    ...(isBuiltin && options.groups !== undefined ? { groups: options.groups } : {}),
    executor,
  };
}
