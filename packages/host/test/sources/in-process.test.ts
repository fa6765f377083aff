import { defineTool } from '@toolhost/plugin-sdk';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { callTool, DEFAULT_LIMITS } from '../../src/core/wrap/wrapper.js';
import { inProcessTool } from '../../src/sources/in-process.js';
import { AsyncMutex } from '../../src/util/lock.js';

const wrapperCtx = (observer?: { progress?: (done: number) => void }) => ({
  sessionId: 's',
  lock: new AsyncMutex(),
  hooks: [],
  limits: DEFAULT_LIMITS,
  ...(observer === undefined ? {} : { observer }),
});

describe('in-process tools: the context execute sees', () => {
  it('works taken apart: progress, sleep and signal keep working out of the object', async () => {
    const seen: number[] = [];
    const tool = inProcessTool(
      defineTool({
        name: 'apart',
        description: 'uses its context destructured',
        input: z.object({}),
        execute: async (_input, { progress, sleep, signal, toolUseId }) => {
          progress(1);
          await sleep(1);
          return `${toolUseId} ${signal.aborted}`;
        },
      }),
      { source: 'custom' },
    );
    const outcome = await callTool(tool, 'tu-9', {}, wrapperCtx({ progress: (done) => seen.push(done) }));
    expect(outcome.status).toBe('ok');
    expect(outcome.result.content).toEqual([{ type: 'text', text: 'tu-9 false' }]);
    expect(seen).toEqual([1]);
  });

  it('a sleep still pending when the call times out never resolves, and the signal says why', async () => {
    let signalSeen: AbortSignal | undefined;
    let woke = false;
    const tool = inProcessTool(
      defineTool({
        name: 'sleepy',
        description: 'sleeps past its limit',
        input: z.object({}),
        execute: async (_input, ctx) => {
          signalSeen = ctx.signal as AbortSignal;
          await ctx.sleep(60_000);
          woke = true;
          return 'woke';
        },
      }),
      { source: 'custom' },
    );
    const outcome = await callTool(
      tool,
      't',
      {},
      { ...wrapperCtx(), limits: { ...DEFAULT_LIMITS, timeoutMs: 30 } },
    );
    expect(outcome.status).toBe('timeout');
    expect(signalSeen?.aborted).toBe(true);
    expect((signalSeen?.reason as Error | undefined)?.message).toBe('timed out after 30 ms');
    expect(woke).toBe(false);
  });
});
