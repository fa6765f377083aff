import { defineTool } from '@toolhost/plugin-sdk';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { Session } from '../../src/core/dispatch/session.js';
import type { CallStatus } from '../../src/core/wrap/wrapper.js';
import { createHost, type ToolHost } from '../../src/host/host.js';
import type { RegisteredTool } from '../../src/types.js';

const STATUSES = new Set<CallStatus>([
  'blocked',
  'cancelled',
  'executor-threw',
  'hook-failed',
  'invalid-input',
  'limit-exceeded',
  'ok',
  'timeout',
  'tool-error',
]);

/** What each executor received, to check it only ever sees valid input. */
const received: { zod: unknown[]; schema: unknown[] } = { zod: [], schema: [] };

const zodTool = defineTool({
  name: 'zod_tool',
  description: 'In-process, checked by zod',
  input: z.object({ n: z.number().int().min(0), tags: z.array(z.string()).max(3).default([]) }),
  execute: (input) => {
    received.zod.push(input);
    return 'ok';
  },
});

const schemaTool: RegisteredTool = {
  descriptor: {
    name: 'schema_tool',
    description: 'Checked by its JSON Schema only',
    inputSchema: {
      type: 'object',
      properties: {
        id: { type: 'string', pattern: '^[a-z]+$', maxLength: 8 },
        count: { type: 'integer', minimum: 1, default: 1 },
      },
      required: ['id'],
      additionalProperties: false,
    },
    owner: { kind: 'custom' },
  },
  source: 'custom',
  sourceId: 'fuzz',
  executor: {
    ref: { kind: 'core', executorId: 'fuzz/schema_tool' },
    run: async (input) => {
      received.schema.push(input);
      return { content: [{ type: 'text', text: 'ok' }] };
    },
  },
};

const names = fc.oneof(
  fc.constantFrom('zod_tool', 'schema_tool', 'read', '', '__proto__', 'constructor', 'toString'),
  fc.string({ maxLength: 70 }),
);
const junk = fc.anything({ withNullPrototype: true, withBigInt: true, withMap: true, maxDepth: 4 });
const plausible = fc.oneof(
  fc.record(
    { n: fc.oneof(fc.integer(), fc.double(), junk), tags: fc.oneof(fc.array(fc.string()), junk) },
    { requiredKeys: [] },
  ),
  fc.record(
    { id: fc.oneof(fc.string({ maxLength: 12 }), junk), count: fc.oneof(fc.integer(), junk) },
    { requiredKeys: [] },
  ),
);
const input = fc.oneof(junk, plausible, fc.constant({ ['__proto__']: { polluted: true } }));

describe('tool calls under generated junk', () => {
  let host: ToolHost;
  let session: Session;
  beforeAll(async () => {
    host = await createHost({ pluginsDir: false, customTools: [zodTool] });
    host.setSource({ kind: 'custom', id: 'fuzz', tools: [schemaTool] });
    session = host.session();
  });
  afterAll(() => host.close());

  it('every call answers once with a well-formed result, and executors only ever see valid input', async () => {
    await fc.assert(
      fc.asyncProperty(names, input, async (name, value) => {
        const outcome = await session.call(name, value);
        expect(STATUSES.has(outcome.status)).toBe(true);
        expect(outcome.result.content.length).toBeGreaterThan(0);
        if (outcome.status !== 'ok') expect(outcome.result.isError).toBe(true);
      }),
      { numRuns: 600 },
    );
    for (const seen of received.zod) expect(zodTool.input.safeParse(seen).success).toBe(true);
    for (const seen of received.schema) {
      const { id, count, ...rest } = seen as { id: unknown; count: unknown };
      expect(typeof id === 'string' && /^[a-z]{0,8}$/.test(id)).toBe(true);
      expect(Number.isInteger(count) && (count as number) >= 1).toBe(true);
      expect(rest).toEqual({});
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('dispatch of a malformed tool_use block, message or OpenAI call answers instead of throwing', async () => {
    const block = fc.oneof(
      junk,
      fc.record(
        { type: fc.constant('tool_use'), id: fc.oneof(fc.string(), junk), name: names, input },
        { requiredKeys: [] },
      ),
    );
    await fc.assert(
      fc.asyncProperty(
        block,
        fc.oneof(fc.array(block, { maxLength: 3 }), junk),
        junk,
        async (one, many, openai) => {
          const result = await session.dispatch(one as never);
          expect(result.type).toBe('tool_result');
          const all = await session.dispatchAll(many as never);
          expect(Array.isArray(all)).toBe(true);
          const message = await session.dispatchOpenAI(openai as never);
          expect(message.role).toBe('tool');
        },
      ),
      { numRuns: 400 },
    );
  });
});
