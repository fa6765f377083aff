import {
  type ApprovalEvent,
  type ApprovalRequest,
  type CallOutcome,
  createHost,
  resultText,
  type ToolHost,
  type ToolhostConfigInput,
} from '@toolhost/host';
import { internalsOf } from '@toolhost/host/internal';
import { defineTool } from '@toolhost/plugin-sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod';

/** Inputs the executor ran with, so a test can tell that nothing ran. */
let ran: unknown[] = [];

const echo = defineTool({
  name: 'echo',
  description: 'Echoes its text',
  input: z.object({ text: z.string() }),
  execute: (input) => {
    ran.push(input);
    return input.text;
  },
});

const wipe = defineTool({
  name: 'wipe',
  description: 'Wipes a disk',
  input: z.object({ disk: z.string() }),
  requireApproval: { reason: 'erases data for good', severity: 'critical' },
  execute: (input) => {
    ran.push(input);
    return `wiped ${input.disk}`;
  },
});

let host: ToolHost | undefined;

async function hostWith(config: ToolhostConfigInput = {}) {
  ran = [];
  host = await createHost({
    pluginsDir: false,
    builtins: false,
    configFile: false,
    customTools: [echo, wipe],
    ...config,
  });
  return host;
}

afterEach(async () => {
  vi.restoreAllMocks();
  await host?.close();
  host = undefined;
});

const text = (outcome: CallOutcome) => resultText(outcome.result);

/** A handler that records its requests and answers with `answer`. */
function recording(answer: (request: ApprovalRequest) => Promise<never> | Promise<unknown> | unknown) {
  const requests: ApprovalRequest[] = [];
  return {
    requests,
    onApproval: async (request: ApprovalRequest) => {
      requests.push(request);
      return (await answer(request)) as never;
    },
  };
}

describe('where an approval requirement comes from', () => {
  it('config tools.approve: the pattern and reason reach the approver, and allow-once runs the call', async () => {
    const h = await hostWith({
      tools: { approve: [{ tool: 'ech*', reason: 'talks back', severity: 'info' }] },
    });
    const approver = recording(() => 'allow-once');
    const outcome = await h
      .session({ onApproval: approver.onApproval })
      .call('echo', { text: 'hi' }, 'toolu_1');
    expect(outcome.status).toBe('ok');
    expect(text(outcome)).toBe('hi');
    expect(approver.requests).toHaveLength(1);
    expect(approver.requests[0]).toMatchObject({
      tool: 'echo',
      toolUseId: 'toolu_1',
      input: { text: 'hi' },
      source: 'config',
      pattern: 'ech*',
      reason: 'talks back',
      severity: 'info',
    });
  });

  it("a descriptor's requireApproval (defineTool) asks with its reason and severity", async () => {
    const h = await hostWith();
    const approver = recording(() => 'allow-once');
    const outcome = await h.session({ onApproval: approver.onApproval }).call('wipe', { disk: 'sdb' });
    expect(outcome.status).toBe('ok');
    expect(approver.requests[0]).toMatchObject({
      source: 'descriptor',
      reason: 'erases data for good',
      severity: 'critical',
    });
    expect(internalsOf(h).registry.tools.get('wipe')?.descriptor.requireApproval).toEqual({
      reason: 'erases data for good',
      severity: 'critical',
    });
  });

  it("a before-hook's requireApproval asks with its title and description", async () => {
    const h = await hostWith();
    const approver = recording(() => 'allow-once');
    const session = h.session({ onApproval: approver.onApproval });
    session.addHooks({
      name: 'guard',
      beforeToolCall: () => ({
        requireApproval: { title: 'Say it out loud?', description: 'It is loud', severity: 'warning' },
      }),
    });
    const outcome = await session.call('echo', { text: 'hi' });
    expect(outcome.status).toBe('ok');
    expect(approver.requests[0]).toMatchObject({
      source: 'hook',
      hook: 'guard',
      title: 'Say it out loud?',
      description: 'It is loud',
    });
  });

  it('a tool nobody asks for approval runs without a handler being called', async () => {
    const h = await hostWith();
    const approver = recording(() => 'deny');
    expect((await h.session({ onApproval: approver.onApproval }).call('echo', { text: 'x' })).status).toBe(
      'ok',
    );
    expect(approver.requests).toHaveLength(0);
  });

  it('a malformed hook request ends the call naming the hook, and nothing runs', async () => {
    const h = await hostWith();
    const session = h.session({ onApproval: async () => 'allow-once' });
    session.addHooks({ name: 'sloppy', beforeToolCall: () => ({ requireApproval: { title: '' } }) });
    const outcome = await session.call('echo', { text: 'x' });
    expect(outcome.status).toBe('hook-failed');
    expect(text(outcome)).toContain(
      'Hook "sloppy" asked for approval of "echo" wrongly: requireApproval.title',
    );
    expect(ran).toEqual([]);
  });
});

describe('precedence', () => {
  it('a block from a hook after the one that asked wins: nobody is asked, nothing runs', async () => {
    const h = await hostWith();
    const approver = recording(() => 'allow-once');
    const session = h.session({ onApproval: approver.onApproval });
    session.addHooks({ name: 'asker', beforeToolCall: () => ({ requireApproval: { title: 'Echo?' } }) });
    session.addHooks({ name: 'blocker', beforeToolCall: () => ({ block: true, reason: 'not today' }) });
    const outcome = await session.call('echo', { text: 'x' });
    expect(outcome.status).toBe('blocked');
    expect(approver.requests).toHaveLength(0);
    expect(ran).toEqual([]);
  });

  it('policy deny wins over tools.approve: nobody is asked', async () => {
    const h = await hostWith({ tools: { approve: ['echo'], deny: ['echo'] } });
    const approver = recording(() => 'allow-once');
    const outcome = await h.session({ onApproval: approver.onApproval }).call('echo', { text: 'x' });
    expect(outcome.status).toBe('blocked');
    expect(text(outcome)).toContain('tools.deny');
    expect(approver.requests).toHaveLength(0);
  });

  it('the first ask wins: one request, with the first asker’s title', async () => {
    const h = await hostWith();
    const approver = recording(() => 'allow-once');
    const session = h.session({ onApproval: approver.onApproval });
    session.addHooks({ name: 'first', beforeToolCall: () => ({ requireApproval: { title: 'First' } }) });
    session.addHooks({ name: 'second', beforeToolCall: () => ({ requireApproval: { title: 'Second' } }) });
    await session.call('echo', { text: 'x' });
    expect(approver.requests.map((r) => r.title)).toEqual(['First']);
  });

  it('config asks before a hook: its entry is the one shown', async () => {
    const h = await hostWith({ tools: { approve: ['echo'] } });
    const approver = recording(() => 'allow-once');
    const session = h.session({ onApproval: approver.onApproval });
    session.addHooks({ name: 'guard', beforeToolCall: () => ({ requireApproval: { title: 'Hook' } }) });
    await session.call('echo', { text: 'x' });
    expect(approver.requests).toHaveLength(1);
    expect(approver.requests[0]).toMatchObject({ source: 'config', pattern: 'echo' });
  });
});

describe('the input is frozen at the request', () => {
  it('a rewrite by a hook after the asking one is what the approver sees and what runs', async () => {
    const h = await hostWith();
    const approver = recording(() => 'allow-once');
    const session = h.session({ onApproval: approver.onApproval });
    session.addHooks({ name: 'asker', beforeToolCall: () => ({ requireApproval: { title: 'Echo?' } }) });
    session.addHooks({ name: 'rewriter', beforeToolCall: () => ({ input: { text: 'rewritten' } }) });
    const outcome = await session.call('echo', { text: 'original' });
    expect(approver.requests[0]?.input).toEqual({ text: 'rewritten' });
    expect(ran).toEqual([{ text: 'rewritten' }]);
    expect(outcome.status).toBe('ok');
  });

  it('an input changed after it was shown (a hook kept hold of its object) is refused, never run', async () => {
    const h = await hostWith();
    // A tool checked by its JSON Schema (as plugin and MCP tools are), which keeps the hook's object.
    h.setSource({
      kind: 'custom',
      id: 'raw',
      tools: [
        {
          descriptor: {
            name: 'raw_echo',
            description: 'Echoes',
            inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
            owner: { kind: 'custom' },
            executor: { kind: 'core', executorId: 'raw/raw_echo' },
          },
          source: 'custom',
          sourceId: 'raw',
          executor: {
            ref: { kind: 'core', executorId: 'raw/raw_echo' },
            run: async (input) => {
              ran.push(structuredClone(input));
              return { content: [{ type: 'text', text: 'ran' }] };
            },
          },
        },
      ],
    });
    const kept = { text: 'harmless' };
    const shown: unknown[] = [];
    const session = h.session({
      onApproval: async (request) => {
        shown.push(request.input);
        kept.text = 'rm -rf /'; // the hook's object, changed while the person decides
        return 'allow-once';
      },
    });
    session.addHooks({
      name: 'sly',
      beforeToolCall: () => ({ requireApproval: { title: 'Echo?' }, input: kept }),
    });
    const outcome = await session.call('raw_echo', { text: 'x' });
    expect(shown).toEqual([{ text: 'harmless' }]);
    expect(outcome.status).toBe('not-approved');
    expect(text(outcome)).toContain('its input changed after it was shown to the approver');
    expect(ran).toEqual([]);
  });

  it('code that kept the input changes nothing once the gate passed: the executor runs exactly what was approved', async () => {
    const h = await hostWith();
    let started: () => void = () => {};
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let received: unknown;
    h.addTool(
      defineTool({
        name: 'shell',
        description: 'Runs a command',
        input: z.object({ command: z.string(), args: z.array(z.string()) }),
        requireApproval: true,
        execute: async (input) => {
          received = input;
          started();
          await released; // the executor reads its input only after others had their chance
          return `ran ${input.command} ${input.args.join(' ')}`;
        },
      }),
    );
    let kept: { command: string; args: string[] } | undefined;
    const session = h.session({ onApproval: async () => 'allow-once' });
    // A hook that keeps hold of the very object the call goes on with.
    session.addHooks({
      name: 'sly',
      beforeToolCall: (event) => {
        kept = event.input as { command: string; args: string[] };
      },
    });
    const call = session.call('shell', { command: 'ls', args: ['-l'] });
    await running;
    if (kept === undefined) throw new Error('the hook did not run');
    kept.command = 'rm';
    kept.args.splice(0, 1, '-rf', '/');
    release();
    const outcome = await call;
    expect(outcome.status).toBe('ok');
    expect(text(outcome)).toBe('ran ls -l');
    expect(received).toEqual({ command: 'ls', args: ['-l'] });
    // A frozen copy: neither the executor nor anything it hands the input to can change it.
    expect(Object.isFrozen(received)).toBe(true);
    expect(Object.isFrozen((received as { args: string[] }).args)).toBe(true);
  });

  it('after-hooks see what ran, and cannot change it under an executor still holding it', async () => {
    const h = await hostWith({ tools: { approve: ['echo'] } });
    const session = h.session({ onApproval: async () => 'allow-once' });
    const seen: unknown[] = [];
    session.addHooks({
      name: 'after',
      afterToolCall: (event) => {
        seen.push(event.input);
        expect(() => {
          (event.input as { text: string }).text = 'changed';
        }).toThrow(TypeError);
      },
    });
    const outcome = await session.call('echo', { text: 'as approved' });
    expect(outcome.status).toBe('ok');
    expect(seen).toEqual([{ text: 'as approved' }]);
    expect(ran).toEqual([{ text: 'as approved' }]);
    expect(ran[0]).toBe(seen[0]);
  });

  it('the approver gets a copy: changing request.input does not change what runs', async () => {
    const h = await hostWith({ tools: { approve: ['echo'] } });
    const session = h.session({
      onApproval: async (request) => {
        (request.input as { text: string }).text = 'changed by the approver';
        return 'allow-once';
      },
    });
    const outcome = await session.call('echo', { text: 'as asked' });
    expect(ran).toEqual([{ text: 'as asked' }]);
    expect(outcome.status).toBe('ok');
  });
});

describe('while a person decides', () => {
  it("the session's other calls go on: asking holds neither the hook lock nor the hook time limit", async () => {
    // A hook time limit far below the wait, and a second call through the same hooks made from
    // inside the approver: both would fail if the ask ran under the lock or the hook limit.
    const h = await hostWith({ limits: { hookTimeoutMs: 20 }, approvals: { timeoutMs: 10_000 } });
    let second: CallOutcome | undefined;
    const session = h.session({
      onApproval: async () => {
        second = await session.call('echo', { text: 'meanwhile' });
        await new Promise((resolve) => setTimeout(resolve, 40)); // longer than hookTimeoutMs
        return 'allow-once';
      },
    });
    session.addHooks({
      name: 'ask-when-slow',
      beforeToolCall: (event) =>
        (event.input as { text: string }).text === 'slow'
          ? { requireApproval: { title: 'Slow?' } }
          : undefined,
    });
    const first = await session.call('echo', { text: 'slow' });
    expect(second?.status).toBe('ok');
    expect(first.status).toBe('ok');
    expect(ran).toEqual([{ text: 'meanwhile' }, { text: 'slow' }]);
  });
});

describe('decisions', () => {
  it('deny: the model gets an is_error result saying who denied and why; nothing runs', async () => {
    const h = await hostWith({ tools: { approve: [{ tool: 'echo', reason: 'loud' }] } });
    const session = h.session({
      onApproval: async () => ({ decision: 'deny', reason: 'not in a meeting', by: 'alice' }),
    });
    const block = await session.dispatch({
      type: 'tool_use',
      id: 'toolu_9',
      name: 'echo',
      input: { text: 'x' },
    });
    expect(block.is_error).toBe(true);
    expect(block.content).toEqual([
      {
        type: 'text',
        text: 'Tool "echo" was not approved: denied by alice: not in a meeting (required by tools.approve pattern "echo" (loud))',
      },
    ]);
    expect((await session.call('echo', { text: 'x' })).status).toBe('not-approved');
    expect(ran).toEqual([]);
  });

  it('allow-once asks again on the next call', async () => {
    const h = await hostWith({ tools: { approve: ['echo'] } });
    const approver = recording(() => 'allow-once');
    const session = h.session({ onApproval: approver.onApproval });
    await session.call('echo', { text: 'a' });
    await session.call('echo', { text: 'a' });
    expect(approver.requests).toHaveLength(2);
  });

  it('allow-always covers the tool for the rest of this session only', async () => {
    const h = await hostWith({ tools: { approve: ['echo', 'wipe'] } });
    const approver = recording(() => 'allow-always');
    const session = h.session({ onApproval: approver.onApproval });
    const events: ApprovalEvent[] = [];
    h.on('approval', (event) => events.push(event));
    await session.call('echo', { text: 'a' });
    const second = await session.call('echo', { text: 'b' });
    expect(second.status).toBe('ok');
    expect(approver.requests).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: 'decided', by: 'remembered', decision: 'allow-always' });
    await session.call('wipe', { disk: 'sdb' }); // another tool: asked
    expect(approver.requests).toHaveLength(2);
    await h.session({ onApproval: approver.onApproval }).call('echo', { text: 'a' }); // another session: asked
    expect(approver.requests).toHaveLength(3);
  });

  it('allow-always with scope input covers only that exact input', async () => {
    const h = await hostWith({ tools: { approve: ['echo'] } });
    const approver = recording(() => ({ decision: 'allow-always', scope: 'input' }));
    const session = h.session({ onApproval: approver.onApproval });
    await session.call('echo', { text: 'same' });
    await session.call('echo', { text: 'same' });
    expect(approver.requests).toHaveLength(1);
    await session.call('echo', { text: 'other' });
    expect(approver.requests).toHaveLength(2);
  });

  it('unanswered: refused after approvals.timeoutMs (fail closed), the handler told through its signal', async () => {
    const h = await hostWith({ tools: { approve: ['echo'] }, approvals: { timeoutMs: 30 } });
    let signal: AbortSignal | undefined;
    const session = h.session({
      onApproval: (request) => {
        signal = request.signal;
        return new Promise(() => {}); // a person who never answers
      },
    });
    const outcome = await session.call('echo', { text: 'x' });
    expect(outcome.status).toBe('not-approved');
    expect(text(outcome)).toContain('nobody decided within 30 ms (approvals.timeoutMs), so it was refused');
    expect(signal?.aborted).toBe(true);
    expect(ran).toEqual([]);
  });

  it("a hook's timeoutMs shortens the wait", async () => {
    const h = await hostWith({ approvals: { timeoutMs: 600_000 } });
    const requests: ApprovalRequest[] = [];
    const session = h.session({
      onApproval: (request) => {
        requests.push(request);
        return new Promise(() => {});
      },
    });
    session.addHooks({
      name: 'quick',
      beforeToolCall: () => ({ requireApproval: { title: 'Now?', timeoutMs: 20 } }),
    });
    const outcome = await session.call('echo', { text: 'x' });
    expect(outcome.status).toBe('not-approved');
    expect(requests[0]?.timeoutMs).toBe(20);
  });

  it("cancelled: the caller's signal aborts the wait, and nothing runs", async () => {
    const h = await hostWith({ tools: { approve: ['echo'] } });
    const caller = new AbortController();
    const events: ApprovalEvent[] = [];
    h.on('approval', (event) => events.push(event));
    const session = h.session({
      onApproval: () => {
        caller.abort();
        return new Promise(() => {});
      },
    });
    const outcome = await session.call('echo', { text: 'x' }, undefined, { signal: caller.signal });
    expect(outcome.status).toBe('cancelled');
    expect(text(outcome)).toBe('Tool "echo" was cancelled by the caller while waiting for approval');
    expect(events.at(-1)).toMatchObject({ type: 'decided', decision: 'cancelled', by: 'caller' });
    expect(ran).toEqual([]);
  });

  it('a handler that throws denies (fail closed), saying so', async () => {
    const h = await hostWith({ tools: { approve: ['echo'] } });
    const session = h.session({
      onApproval: async () => {
        throw new Error('dialog crashed');
      },
    });
    const outcome = await session.call('echo', { text: 'x' });
    expect(outcome.status).toBe('not-approved');
    expect(text(outcome)).toContain('denied by onApproval: onApproval failed: dialog crashed');
  });
});

describe('who answers', () => {
  it('no handler and nobody listening: refused at once, naming how to answer', async () => {
    const h = await hostWith({ tools: { approve: ['echo'] } });
    const outcome = await h.session().call('echo', { text: 'x' });
    expect(outcome.status).toBe('not-approved');
    const message = text(outcome);
    expect(message).toContain('onApproval');
    expect(message).toContain('--yes');
    expect(message).toContain('remove "echo" from tools.approve');
    expect(h.approvals.pending()).toEqual([]);
  });

  it('events say what was asked, who decided what, and how long it waited', async () => {
    const h = await hostWith({ tools: { approve: ['echo'] } });
    const events: ApprovalEvent[] = [];
    h.on('approval', (event) => events.push(event));
    // The person takes 90 s to decide: a clock the test moves, so waitedMs is checked exactly.
    const realNow = performance.now.bind(performance);
    let decidingMs = 0;
    vi.spyOn(performance, 'now').mockImplementation(() => realNow() + decidingMs);
    const session = h.session({
      id: 's-1',
      onApproval: async () => {
        decidingMs += 90_000;
        return 'allow-once';
      },
    });
    await session.call('echo', { text: 'x' }, 'toolu_7');
    expect(events.map((e) => e.type)).toEqual(['requested', 'decided']);
    const [requested, decided] = events;
    expect(requested?.approval).toMatchObject({ sessionId: 's-1', toolUseId: 'toolu_7', tool: 'echo' });
    expect(decided).toMatchObject({ decision: 'allow-once', by: 'onApproval' });
    expect(decided?.type === 'decided' && decided.waitedMs).toBeGreaterThanOrEqual(90_000);
    expect(decided?.approval.id).toBe(requested?.approval.id);
  });

  it('an external answer through host.approvals decides a call of a session without a handler', async () => {
    const h = await hostWith({ tools: { approve: ['echo'] } });
    const decided: ApprovalEvent[] = [];
    h.on('approval', (event) => {
      if (event.type === 'requested') {
        expect(h.approvals.pending().map((p) => p.id)).toEqual([event.approval.id]);
        expect(h.approvals.answer(event.approval.id, 'allow-once', 'dashboard')).toBe(true);
      } else decided.push(event);
    });
    const outcome = await h.session().call('echo', { text: 'x' });
    expect(outcome.status).toBe('ok');
    expect(decided[0]).toMatchObject({ decision: 'allow-once', by: 'dashboard' });
    expect(h.approvals.pending()).toEqual([]);
  });

  it('the first answer wins between the handler and the queue', async () => {
    const h = await hostWith({ tools: { approve: ['echo'] } });
    let handlerSignal: AbortSignal | undefined;
    let answerLate: (() => void) | undefined;
    const session = h.session({
      onApproval: (request) => {
        handlerSignal = request.signal;
        // An operator answers from elsewhere while the session's own dialog is still open.
        expect(
          h.approvals.answer(request.id, { decision: 'deny', reason: 'operator says no' }, 'operator'),
        ).toBe(true);
        return new Promise((resolve) => {
          answerLate = () => resolve('allow-once');
        });
      },
    });
    const outcome = await session.call('echo', { text: 'x' });
    expect(outcome.status).toBe('not-approved');
    expect(text(outcome)).toContain('denied by operator: operator says no');
    expect(handlerSignal?.aborted).toBe(true);
    answerLate?.(); // too late: changes nothing
    expect(ran).toEqual([]);
  });

  it('answer() refuses a malformed answer and reports an unknown id', () => {
    return hostWith().then((h) => {
      expect(() => h.approvals.answer('x', 'maybe' as never, 'me')).toThrow(/allow-once/);
      expect(h.approvals.answer('no-such-id', 'deny', 'me')).toBe(false);
    });
  });
});
