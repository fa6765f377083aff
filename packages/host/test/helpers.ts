import { defineTool, type ToolDescriptor, type ToolResult } from '@toolhost/plugin-sdk';
import * as z from 'zod';
import { inProcessTool } from '../src/sources/in-process.js';
import type { ExecutionContext, RegisteredTool, ToolSource, ToolSourceKind } from '../src/types.js';

/** A descriptor for planner tests: only the fields under test vary. */
export function descriptor(name: string, extra: Partial<ToolDescriptor> = {}): ToolDescriptor {
  return {
    name,
    description: `the ${name} tool`,
    inputSchema: { type: 'object' },
    owner: { kind: 'core' },
    executor: { kind: 'core', executorId: name },
    ...extra,
  };
}

/** A registered tool of any source kind whose executor echoes its input as JSON text. */
export function fakeTool(
  name: string,
  source: ToolSourceKind = 'builtin',
  sourceId: string = source,
  extra: {
    groups?: string[];
    run?: (input: unknown, execution?: ExecutionContext) => Promise<ToolResult>;
  } = {},
): RegisteredTool {
  const owner: ToolDescriptor['owner'] =
    source === 'plugin'
      ? { kind: 'plugin', pluginId: sourceId }
      : source === 'mcp'
        ? { kind: 'mcp', serverId: sourceId }
        : source === 'custom'
          ? { kind: 'custom' }
          : { kind: 'core' };
  const ref = { kind: 'core' as const, executorId: `${sourceId}/${name}` };
  return {
    descriptor: descriptor(name, { owner, executor: ref }),
    source,
    sourceId,
    ...(extra.groups === undefined ? {} : { groups: extra.groups }),
    executor: {
      ref,
      run: extra.run ?? (async (input) => ({ content: [{ type: 'text', text: JSON.stringify(input) }] })),
    },
  };
}

export function source(kind: ToolSourceKind, id: string, tools: RegisteredTool[]): ToolSource {
  return { kind, id, tools };
}

/** An in-process tool with a real zod schema: `{ text: string, times?: int 1..5 }`, repeats text. */
export const repeatTool = defineTool({
  name: 'repeat',
  description: 'Repeats a text',
  input: z.object({ text: z.string(), times: z.number().int().min(1).max(5).default(1) }),
  execute: ({ text, times }) => text.repeat(times),
});

export function registeredRepeat(): RegisteredTool {
  return inProcessTool(repeatTool, { source: 'custom' });
}

/** A promise with its resolve function exposed, to sequence concurrent work without sleeps. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve: (value: T) => void = () => {};
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
