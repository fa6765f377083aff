import { afterEach, describe, expect, it, vi } from 'vitest';
import { HookSet } from '../../../src/core/wrap/hooks.js';
import { resultText } from '../../../src/core/wrap/results.js';
import {
  type CallLimits,
  callTool,
  DEFAULT_LIMITS,
  type WrapperContext,
} from '../../../src/core/wrap/wrapper.js';
import type { ExecutionContext, ToolHooks } from '../../../src/types.js';
import { CancelSource, cancellationOf } from '../../../src/util/cancel.js';
import { AsyncMutex } from '../../../src/util/lock.js';
import { deferred, fakeTool, registeredRepeat } from '../../helpers.js';

function ctx(
  hooks: ToolHooks[] = [],
  extra: Omit<Partial<WrapperContext>, 'limits'> & { limits?: Partial<CallLimits> } = {},
): WrapperContext {
  return {
    sessionId: 's1',
    lock: new AsyncMutex(),
    ...extra,
    hooks,
    limits: { ...DEFAULT_LIMITS, ...extra.limits },
  };
}

const call = (hooks: ToolHooks[] = [], input: unknown = { text: 'ab', times: 2 }) =>
  callTool(registeredRepeat(), 'tu1', input, ctx(hooks));

describe('callTool: validation and execution', () => {
  it('runs the executor with the validated input (defaults applied)', async () => {
    const outcome = await call([], { text: 'x' });
    expect(outcome.status).toBe('ok');
    expect(resultText(outcome.result)).toBe('x');
    expect(outcome.result.isError).toBeUndefined();
  });

  describe('timings', () => {
    afterEach(() => {
      vi.restoreAllMocks();
    });

    it("executorMs is the executor's span, durationMs the whole call's (hooks included)", async () => {
      // A clock the test moves: 5 ms in a before-hook, 25 ms in the executor, nothing else.
      let now = 1_000;
      vi.spyOn(performance, 'now').mockImplementation(() => now);
      const slowHook: ToolHooks = {
        name: 'slow-hook',
        beforeToolCall: () => {
          now += 5;
        },
      };
      const tool = fakeTool('timed', 'custom', 'custom', {
        run: async () => {
          now += 25;
          return { content: [{ type: 'text', text: 'done' }] };
        },
      });
      const outcome = await callTool(tool, 'tu1', {}, ctx([slowHook]));
      expect(outcome.status).toBe('ok');
      expect(outcome.executorMs).toBe(25);
      expect(outcome.durationMs).toBe(30);
    });
  });

  it('rejects invalid input naming every failing path, without running anything', async () => {
    let ran = false;
    const spy: ToolHooks = {
      name: 'spy',
      beforeToolCall: () => {
        ran = true;
      },
    };
    const outcome = await call([spy], { text: 5, times: 9 });
    expect(outcome.status).toBe('invalid-input');
    expect(outcome.result.isError).toBe(true);
    expect(resultText(outcome.result)).toMatch(
      /Invalid input for tool "repeat": at "text": .*; at "times": /,
    );
    expect(ran).toBe(false);
  });

  it('a signal the executor first asks for after its call ended is already aborted', async () => {
    let kept: ExecutionContext | undefined;
    const tool = fakeTool('keeper', 'custom', 'custom', {
      run: async (_input, execution) => {
        kept = execution;
        return { content: [{ type: 'text', text: 'done' }] };
      },
    });
    const outcome = await callTool(tool, 't', {}, ctx());
    expect(outcome.status).toBe('ok');
    const signal = kept?.signal;
    expect(signal?.aborted).toBe(true);
    expect((signal?.reason as Error | undefined)?.message).toBe('call ended');
  });

  it('an executor may take progress and log out of its context and still reach the observer', async () => {
    const events: string[] = [];
    const tool = fakeTool('loose', 'custom', 'custom', {
      run: async (_input, execution) => {
        if (execution === undefined) throw new Error('no execution context');
        const { progress, log } = execution;
        progress(1, 2, 'half');
        log.info('hello');
        return { content: [{ type: 'text', text: 'done' }] };
      },
    });
    const observer = {
      progress: (done: number, total?: number, message?: string) =>
        events.push(`${done}/${total} ${message}`),
      log: (level: string, message: string) => events.push(`${level} ${message}`),
    };
    const outcome = await callTool(tool, 't', {}, ctx([], { observer }));
    expect(outcome.status).toBe('ok');
    expect(events).toEqual(['1/2 half', 'info hello']);
  });

  it('turns an executor throw into an error result with its message', async () => {
    const tool = fakeTool('boom', 'custom', 'custom', {
      run: async () => {
        throw new Error('disk on fire');
      },
    });
    const outcome = await callTool(tool, 't', {}, ctx());
    expect(outcome).toMatchObject({ status: 'executor-threw', result: { isError: true } });
    expect(resultText(outcome.result)).toBe('Tool "boom" failed: disk on fire');
  });

  it('answers at once, saying where, for a result the host cannot read (an image block without data)', async () => {
    const tool = fakeTool('blank', 'custom', 'custom', {
      run: async () => ({ content: [{ type: 'image', mimeType: 'image/png' }] }) as never,
    });
    // The call's deadline is far: before the fix the call waited for it.
    const outcome = await callTool(tool, 't', {}, ctx([], { limits: { timeoutMs: 600_000 } }));
    expect(outcome).toMatchObject({ status: 'executor-threw', result: { isError: true } });
    expect(resultText(outcome.result)).toMatch(
      /^Tool "blank" returned a result the host cannot read: result\.content\.0/,
    );
  });

  it('passes an isError result through as a tool error', async () => {
    const tool = fakeTool('soft', 'custom', 'custom', {
      run: async () => ({ content: [{ type: 'text', text: 'no such city' }], isError: true }),
    });
    const outcome = await callTool(tool, 't', {}, ctx());
    expect(outcome.status).toBe('tool-error');
    expect(resultText(outcome.result)).toBe('no such city');
  });

  it('times out a hung executor, aborts its signal and says which limit', async () => {
    const aborted = deferred<unknown>();
    const tool = fakeTool('hang', 'custom', 'custom', {
      run: (_input) => new Promise(() => {}),
    });
    const hang = {
      ...tool,
      executor: {
        ...tool.executor,
        run: (_: unknown, c: { signal: AbortSignal }) => {
          c.signal.addEventListener('abort', () => aborted.resolve(c.signal.reason));
          return new Promise<never>(() => {});
        },
      },
    };
    const outcome = await callTool(hang, 't', {}, ctx([], { limits: { timeoutMs: 20 } }));
    expect(outcome.status).toBe('timeout');
    expect(resultText(outcome.result)).toContain('timed out after 20 ms (limit: limits.timeoutMs)');
    expect(String(await aborted.promise)).toContain('timed out');
  });

  it('ends a call promptly when the caller aborts', async () => {
    const controller = new AbortController();
    const started = deferred();
    const tool = fakeTool('slow', 'custom', 'custom', {
      run: () => {
        started.resolve();
        return new Promise(() => {});
      },
    });
    const pending = callTool(tool, 't', {}, ctx([], { signal: controller.signal }));
    await started.promise;
    controller.abort();
    const outcome = await pending;
    expect(outcome.status).toBe('cancelled');
    expect(resultText(outcome.result)).toContain('cancelled by the caller');
  });

  it('runs nothing for a caller that had already cancelled', async () => {
    let ran = false;
    const tool = fakeTool('eager', 'custom', 'custom', {
      run: async () => {
        ran = true;
        return { content: [] };
      },
    });
    const controller = new AbortController();
    controller.abort();
    const outcome = await callTool(tool, 't', {}, ctx([], { signal: controller.signal }));
    expect(outcome.status).toBe('cancelled');
    expect(ran).toBe(false);
  });

  it('runs nothing when the caller cancels while the before-hooks run', async () => {
    let ran = false;
    const controller = new AbortController();
    const tool = fakeTool('eager', 'custom', 'custom', {
      run: async () => {
        ran = true;
        return { content: [] };
      },
    });
    const hook: ToolHooks = {
      name: 'slow-approval',
      beforeToolCall: () => {
        controller.abort();
      },
    };
    const outcome = await callTool(tool, 't', {}, ctx([hook], { signal: controller.signal }));
    expect(outcome.status).toBe('cancelled');
    expect(ran).toBe(false);
  });

  it('aborts the signal an abandoned (timed-out) hook holds once the call ends', async () => {
    let held: AbortSignal | undefined;
    const hang: ToolHooks = {
      name: 'stuck',
      beforeToolCall: (event) => {
        held = event.signal;
        return new Promise(() => {});
      },
    };
    await callTool(registeredRepeat(), 't', { text: 'a' }, ctx([hang], { limits: { hookTimeoutMs: 10 } }));
    expect(held?.aborted).toBe(true);
  });

  it('refuses a result over maxResultChars', async () => {
    const outcome = await callTool(
      registeredRepeat(),
      't',
      { text: 'abcdef', times: 5 },
      ctx([], { limits: { maxResultChars: 10 } }),
    );
    expect(outcome.status).toBe('limit-exceeded');
    expect(resultText(outcome.result)).toContain('over the limit maxResultChars (10)');
  });

  it('forwards log lines and progress to the observer', async () => {
    const lines: string[] = [];
    const tool = fakeTool('chatty', 'custom', 'custom');
    const chatty = {
      ...tool,
      executor: {
        ...tool.executor,
        run: async (_: unknown, c: import('../../../src/types.js').ExecutionContext) => {
          c.log.info('hello', { a: 1 });
          c.progress(1, 2, 'half');
          return { content: [] };
        },
      },
    };
    await callTool(
      chatty,
      't',
      {},
      ctx([], {
        observer: {
          log: (level, message, data) => lines.push(`${level}:${message}:${JSON.stringify(data)}`),
          progress: (done, total, message) => lines.push(`progress:${done}/${total}:${message}`),
        },
      }),
    );
    expect(lines).toEqual(['info:hello:{"a":1}', 'progress:1/2:half']);
  });
});

describe('callTool: before-hooks', () => {
  it('pass: returning nothing leaves the input alone', async () => {
    const seen: unknown[] = [];
    const outcome = await call([{ name: 'watch', beforeToolCall: (e) => void seen.push(e.input) }]);
    expect(seen).toEqual([{ text: 'ab', times: 2 }]);
    expect(resultText(outcome.result)).toBe('abab');
  });

  it('replace: the next hook and the executor see the new input, validated', async () => {
    const seen: unknown[] = [];
    const outcome = await call([
      {
        name: 'shout',
        beforeToolCall: (e) => ({ input: { text: (e.input as { text: string }).text.toUpperCase() } }),
      },
      { name: 'watch', beforeToolCall: (e) => void seen.push(e.input) },
    ]);
    expect(seen).toEqual([{ text: 'AB', times: 1 }]);
    expect(resultText(outcome.result)).toBe('AB');
  });

  it('invalid replace: an error result naming the hook; the executor never runs', async () => {
    const outcome = await call([
      { name: 'broken-rewriter', beforeToolCall: () => ({ input: { text: 42 } }) },
    ]);
    expect(outcome.status).toBe('hook-failed');
    expect(resultText(outcome.result)).toMatch(
      /^Hook "broken-rewriter" rewrote the input of "repeat" into an invalid one: at "text"/,
    );
  });

  it('block: the reason reaches the model and later hooks do not run', async () => {
    let later = false;
    const outcome = await call([
      { name: 'guard', beforeToolCall: () => ({ block: true, reason: 'not on Fridays' }) },
      {
        name: 'later',
        beforeToolCall: () => {
          later = true;
        },
      },
    ]);
    expect(outcome.status).toBe('blocked');
    expect(resultText(outcome.result)).toBe('Tool "repeat" was blocked by hook "guard": not on Fridays');
    expect(later).toBe(false);
  });

  it('throw: blocks the call with the error message', async () => {
    let executed = false;
    const tool = fakeTool('t', 'custom', 'custom', {
      run: async () => {
        executed = true;
        return { content: [] };
      },
    });
    const outcome = await callTool(
      tool,
      'x',
      {},
      ctx([
        {
          name: 'strict',
          beforeToolCall: async () => {
            throw new Error('nope');
          },
        },
      ]),
    );
    expect(outcome.status).toBe('blocked');
    expect(resultText(outcome.result)).toBe('Tool "t" was blocked: hook "strict" failed: nope');
    expect(executed).toBe(false);
  });

  it('a hook that never settles is timed out and blocks, releasing the lock', async () => {
    const lock = new AsyncMutex();
    const hang: ToolHooks = { name: 'stuck', beforeToolCall: () => new Promise(() => {}) };
    const outcome = await callTool(
      registeredRepeat(),
      't',
      { text: 'a' },
      { ...ctx([hang], { limits: { hookTimeoutMs: 10 } }), lock },
    );
    expect(resultText(outcome.result)).toContain(
      'hook "stuck" failed: hook "stuck" did not finish within 10 ms',
    );
    expect(await lock.run(() => 'free')).toBe('free');
  });
});

describe('callTool: after-hooks', () => {
  it('rewrite: content, structuredContent and isError are merged field by field', async () => {
    const outcome = await call([
      { name: 'a', afterToolCall: () => ({ structuredContent: { n: 1 } }) },
      {
        name: 'b',
        afterToolCall: (e) => ({ content: [{ type: 'text', text: `${resultText(e.result)}!` }] }),
      },
      { name: 'c', afterToolCall: () => ({ isError: true }) },
    ]);
    expect(outcome.result).toEqual({
      content: [{ type: 'text', text: 'abab!' }],
      structuredContent: { n: 1 },
      isError: true,
    });
  });

  it('a present structuredContent: undefined removes it; an absent key keeps it', async () => {
    const outcome = await call([
      { name: 'add', afterToolCall: () => ({ structuredContent: { n: 1 } }) },
      { name: 'keep', afterToolCall: () => ({ isError: false }) },
      { name: 'check', afterToolCall: (e) => void expect(e.result.structuredContent).toEqual({ n: 1 }) },
      { name: 'drop', afterToolCall: () => ({ structuredContent: undefined }) },
    ]);
    expect(outcome.result).toEqual({ content: [{ type: 'text', text: 'abab' }] });
  });

  it('throw: the result becomes an error that says the executor already ran', async () => {
    const outcome = await call([
      {
        name: 'audit',
        afterToolCall: () => {
          throw new Error('ledger full');
        },
      },
    ]);
    expect(outcome.status).toBe('hook-failed');
    expect(outcome.result.isError).toBe(true);
    expect(resultText(outcome.result)).toBe(
      'After-hook "audit" failed after tool "repeat" had already run (its effects happened): ledger full',
    );
  });

  it('sees the input the executor ran with and the duration', async () => {
    const events: unknown[] = [];
    await call([
      { name: 'spy', afterToolCall: (e) => void events.push([e.input, typeof e.durationMs, e.toolUseId]) },
    ]);
    expect(events).toEqual([[{ text: 'ab', times: 2 }, 'number', 'tu1']]);
  });
});

describe('HookSet', () => {
  it('returns disposers, and a hook that unregisters itself does not skip its neighbour', async () => {
    const set = new HookSet();
    const order: string[] = [];
    const disposeFirst = set.add({
      name: 'first',
      beforeToolCall: () => {
        order.push('first');
        disposeFirst();
      },
    });
    set.add({ name: 'second', beforeToolCall: () => void order.push('second') });
    await callTool(registeredRepeat(), 't', { text: 'a' }, ctx([...set.snapshot()]));
    expect(order).toEqual(['first', 'second']);
    order.length = 0;
    await callTool(registeredRepeat(), 't', { text: 'a' }, ctx([...set.snapshot()]));
    expect(order).toEqual(['second']);
    disposeFirst();
    expect(set.snapshot().map((hooks) => hooks.name)).toEqual(['second']);
  });

  it('refuses a hook without a name', () => {
    expect(() => new HookSet().add({ name: ' ' })).toThrow(/name/);
  });
});

describe('cancellationOf: the cancellation an executor passes down', () => {
  it("is the context's own when it carries one, whoever made the context: no signal is made", () => {
    const own = new CancelSource();
    const context = {
      get signal(): never {
        throw new Error('a signal was made');
      },
      cancellation: own,
    };
    expect(cancellationOf(context)).toBe(own);
  });
});
