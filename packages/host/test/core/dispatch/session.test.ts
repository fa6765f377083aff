import { context, env } from '@toolhost/plugin-sdk';
import { describe, expect, it } from 'vitest';
import { type HostSnapshot, Session } from '../../../src/core/dispatch/session.js';
import { buildRegistry } from '../../../src/core/register/registry.js';
import { DEFAULT_LIMITS } from '../../../src/core/wrap/wrapper.js';
import type { RegisteredTool, ToolHooks, ToolPolicy } from '../../../src/types.js';
import { deferred, fakeTool, registeredRepeat, source } from '../../helpers.js';

function snapshotOf(tools: RegisteredTool[], policy: ToolPolicy = {}, hooks: ToolHooks[] = []): HostSnapshot {
  return {
    version: 1,
    registry: buildRegistry([source('custom', 'custom', tools)], policy),
    policy,
    availability: { env: {} },
    limits: DEFAULT_LIMITS,
    hooks,
  };
}

const text = (block: { content: readonly { type: string; text?: string }[] }) =>
  block.content.map((c) => c.text ?? '').join('\n');

function hiddenTool(): RegisteredTool {
  const tool = fakeTool('secret', 'custom');
  return { ...tool, descriptor: { ...tool.descriptor, availability: env('SECRET_KEY') } };
}

describe('Session.dispatch', () => {
  it('turns a tool_use block into a tool_result block', async () => {
    const session = new Session(() => snapshotOf([registeredRepeat()]));
    const result = await session.dispatch({
      type: 'tool_use',
      id: 'tu_1',
      name: 'repeat',
      input: { text: 'hi', times: 2 },
    });
    expect(result).toEqual({
      type: 'tool_result',
      tool_use_id: 'tu_1',
      content: [{ type: 'text', text: 'hihi' }],
    });
  });

  it('unknown tool: an error naming it and listing what exists', async () => {
    const session = new Session(() => snapshotOf([registeredRepeat()]));
    const result = await session.dispatch({ type: 'tool_use', id: 'a', name: 'nope', input: {} });
    expect(result.is_error).toBe(true);
    expect(text(result)).toBe('Unknown tool "nope". Tools available in this session: repeat');
  });

  it('hidden tool: an error with the reason, and the executor never runs', async () => {
    let ran = false;
    const tool = hiddenTool();
    const spy = {
      ...tool,
      executor: {
        ...tool.executor,
        run: async () => {
          ran = true;
          return { content: [] };
        },
      },
    };
    const session = new Session(() => snapshotOf([spy]));
    const result = await session.dispatch({ type: 'tool_use', id: 'a', name: 'secret', input: {} });
    expect(result.is_error).toBe(true);
    expect(text(result)).toContain(
      'Tool "secret" is not available: env-missing: environment variable SECRET_KEY',
    );
    expect(ran).toBe(false);
  });

  it('denied tool (kept out of the Map): an error saying policy denied it', async () => {
    const session = new Session(() => snapshotOf([registeredRepeat()], { deny: ['repeat'] }));
    const result = await session.dispatch({
      type: 'tool_use',
      id: 'a',
      name: 'repeat',
      input: { text: 'x' },
    });
    expect(text(result)).toContain('policy-denied: "repeat" is denied by tools.deny pattern "repeat"');
  });

  it('denied at call time: policy is checked again when the call arrives', async () => {
    const built = snapshotOf([registeredRepeat()]);
    const session = new Session(() => ({ ...built, policy: { deny: ['rep*'] } }));
    const result = await session.dispatch({
      type: 'tool_use',
      id: 'a',
      name: 'repeat',
      input: { text: 'x' },
    });
    expect(result.is_error).toBe(true);
    expect(text(result)).toBe(
      'Tool "repeat" is denied by policy: "repeat" is denied by tools.deny pattern "rep*"',
    );
  });

  it('what a session learned of a callable tool does not outlive a change of policy, active set or hooks', async () => {
    const built = snapshotOf([registeredRepeat(), fakeTool('other', 'custom')]);
    let current = built;
    const session = new Session(() => current);
    const call = () => session.call('repeat', { text: 'x' });
    expect((await call()).status).toBe('ok');
    // A new snapshot with a policy that denies it: refused at once.
    current = { ...built, policy: { deny: ['repeat'] } };
    expect((await call()).result.content).toEqual([
      {
        type: 'text',
        text: 'Tool "repeat" is denied by policy: "repeat" is denied by tools.deny pattern "repeat"',
      },
    ]);
    current = built;
    expect((await call()).status).toBe('ok');
    session.setActiveToolsByName(['other']);
    expect((await call()).status).toBe('blocked');
    session.activateAll();
    expect((await call()).status).toBe('ok');
    // A session hook added after calls were made runs on the next call, and stops when removed.
    const seen: string[] = [];
    const remove = session.addHooks({ name: 'late', beforeToolCall: (e) => void seen.push(e.toolName) });
    await call();
    remove();
    await call();
    expect(seen).toEqual(['repeat']);
  });

  it('inactive tool: an error saying it is not active in this session', async () => {
    const session = new Session(() => snapshotOf([registeredRepeat(), fakeTool('other', 'custom')]), {
      activeTools: ['other'],
    });
    const result = await session.dispatch({
      type: 'tool_use',
      id: 'a',
      name: 'repeat',
      input: { text: 'x' },
    });
    expect(text(result)).toBe('Tool "repeat" is not active in this session');
  });

  it('invalid input: an error naming the failing paths', async () => {
    const session = new Session(() => snapshotOf([registeredRepeat()]));
    const result = await session.dispatch({ type: 'tool_use', id: 'a', name: 'repeat', input: { times: 0 } });
    expect(result.is_error).toBe(true);
    expect(text(result)).toMatch(/at "text": .*at "times": /);
  });

  it('a malformed block gets an error result instead of a throw', async () => {
    const session = new Session(() => snapshotOf([]));
    const result = await session.dispatch({ type: 'tool_use', id: 'x', name: '', input: {} });
    expect(result).toMatchObject({ tool_use_id: 'x', is_error: true });
    expect(text(result)).toContain('Malformed tool_use block');
  });
});

describe('Session.dispatchAll', () => {
  it('runs tool_use blocks concurrently and returns results in source order', async () => {
    const gate = deferred();
    const started: string[] = [];
    const slow = fakeTool('slow', 'custom', 'custom', {
      run: async () => {
        started.push('slow');
        await gate.promise;
        return { content: [{ type: 'text', text: 'slow done' }] };
      },
    });
    const fast = fakeTool('fast', 'custom', 'custom', {
      run: async () => {
        started.push('fast');
        gate.resolve(); // only reachable if fast runs while slow is still waiting
        return { content: [{ type: 'text', text: 'fast done' }] };
      },
    });
    const session = new Session(() => snapshotOf([slow, fast]));
    const results = await session.dispatchAll([
      { type: 'text', text: 'thinking' },
      { type: 'tool_use', id: '1', name: 'slow', input: {} },
      { type: 'tool_use', id: '2', name: 'fast', input: {} },
    ]);
    expect(started).toEqual(['slow', 'fast']);
    expect(results.map((r) => [r.tool_use_id, text(r)])).toEqual([
      ['1', 'slow done'],
      ['2', 'fast done'],
    ]);
  });
});

describe('session write lock', () => {
  it('serializes the hooks of concurrent calls in one session, while executors overlap', async () => {
    const log: string[] = [];
    const firstHookEntered = deferred();
    const releaseFirstHook = deferred();
    const bothExecuting = deferred();
    let executing = 0;
    const tool = fakeTool('t', 'custom', 'custom', {
      run: async (input) => {
        executing += 1;
        log.push(`exec ${(input as { n: number }).n}`);
        if (executing === 2) bothExecuting.resolve();
        await bothExecuting.promise;
        return { content: [] };
      },
    });
    const hook: ToolHooks = {
      name: 'slow-audit',
      beforeToolCall: async (e) => {
        const n = (e.input as { n: number }).n;
        log.push(`enter ${n}`);
        if (n === 1) {
          firstHookEntered.resolve();
          await releaseFirstHook.promise;
        }
        log.push(`leave ${n}`);
      },
    };
    const session = new Session(() => snapshotOf([tool], {}, [hook]));
    const one = session.call('t', { n: 1 });
    await firstHookEntered.promise;
    const two = session.call('t', { n: 2 });
    // Give call 2 every chance to enter its hook while hook 1 is still suspended.
    await new Promise((resolve) => setImmediate(resolve));
    releaseFirstHook.resolve();
    await Promise.all([one, two]);
    // Without the lock, hook 2 would enter while hook 1 is suspended: enter 1, enter 2, leave 2, …
    expect(log.slice(0, 2)).toEqual(['enter 1', 'leave 1']);
    expect(log.indexOf('enter 2')).toBeGreaterThan(log.indexOf('leave 1'));
    // Both executors ran at once (bothExecuting only resolves when two overlap).
    expect(log.filter((line) => line.startsWith('exec')).sort()).toEqual(['exec 1', 'exec 2']);
  });

  it('does not serialize hooks across different sessions', async () => {
    const gate = deferred();
    const entered: string[] = [];
    const hook: ToolHooks = {
      name: 'gate',
      beforeToolCall: async (e) => {
        entered.push(e.sessionId);
        if (e.sessionId === 'a') await gate.promise;
        else gate.resolve();
      },
    };
    const snapshot = snapshotOf([fakeTool('t', 'custom')], {}, [hook]);
    const a = new Session(() => snapshot, { id: 'a' }).call('t', {});
    const b = new Session(() => snapshot, { id: 'b' }).call('t', {});
    await Promise.all([a, b]);
    expect(entered).toEqual(['a', 'b']);
  });
});

describe('active tools, shapes and prompt', () => {
  const tools = () => [registeredRepeat(), fakeTool('other', 'custom'), hiddenTool()];

  it('setActiveToolsByName activates existing names and returns the skipped ones', () => {
    const session = new Session(() => snapshotOf(tools()));
    expect(session.setActiveToolsByName(['repeat', 'ghost', 'secret'])).toEqual({
      active: ['repeat', 'secret'],
      skipped: ['ghost'],
    });
    expect(session.descriptors().map((d) => d.name)).toEqual(['repeat']);
    session.activateAll();
    expect(session.descriptors().map((d) => d.name)).toEqual(['other', 'repeat']);
  });

  it('gives the tools in Anthropic, OpenAI and MCP shapes', () => {
    const session = new Session(() => snapshotOf([registeredRepeat()]));
    const [anthropic] = session.tools('anthropic');
    expect(anthropic).toEqual({
      name: 'repeat',
      description: 'Repeats a text',
      input_schema: expect.objectContaining({ type: 'object' }),
    });
    expect(anthropic?.input_schema).toMatchObject({
      required: ['text'],
      properties: { text: { type: 'string' } },
    });
    const [openai] = session.tools('openai');
    expect(openai).toEqual({
      type: 'function',
      function: { name: 'repeat', description: 'Repeats a text', parameters: anthropic?.input_schema },
    });
    const [mcp] = session.tools('mcp');
    expect(mcp).toEqual({
      name: 'repeat',
      description: 'Repeats a text',
      inputSchema: anthropic?.input_schema,
      _meta: { 'toolhost/executor': 'core' },
    });
  });

  it('refuses an unknown tool format with an error listing the formats', () => {
    const session = new Session(() => snapshotOf([registeredRepeat()]));
    expect(() => session.tools('gemini' as 'anthropic')).toThrow(
      new TypeError(
        'session.tools("gemini"): unknown tool format; use one of anthropic, openai, openai-responses, mcp',
      ),
    );
  });

  it('gives the tools in the OpenAI Responses shape, with strict off', () => {
    const session = new Session(() => snapshotOf([registeredRepeat()]));
    const [tool] = session.tools('openai-responses');
    expect(tool).toEqual({
      type: 'function',
      name: 'repeat',
      description: 'Repeats a text',
      parameters: session.tools('anthropic')[0]?.input_schema,
      strict: false,
    });
  });
});

describe('system prompt section', () => {
  it('does not repeat the visible tools, which the tool list already carries', () => {
    const session = new Session(() => snapshotOf([registeredRepeat(), fakeTool('other', 'custom')]));
    expect(session.systemPromptSection()).toBe('');
  });

  it('names a tool the user can make available, with its summary and what it needs', () => {
    const session = new Session(() => snapshotOf([registeredRepeat(), hiddenTool()]));
    const section = session.systemPromptSection();
    expect(section).toMatch(/^## Tools not available now\n/);
    expect(section).toContain('- secret (');
    expect(section).toContain('environment variable SECRET_KEY is not set');
    expect(section).not.toContain('repeat');
  });

  it("leaves out tools hidden for the operator's reasons, and tools outside the session's active set", () => {
    const tool = fakeTool('web_only', 'custom');
    const contextual = {
      ...tool,
      descriptor: { ...tool.descriptor, availability: context('channel', 'web') },
    };
    const session = new Session(() => snapshotOf([contextual, hiddenTool(), registeredRepeat()]));
    expect(session.systemPromptSection()).not.toContain('web_only');
    session.setActiveToolsByName(['repeat']);
    expect(session.systemPromptSection()).toBe('');
  });

  it('applies session context to context() availability', () => {
    const tool = fakeTool('slack_only', 'custom');
    const gated = {
      ...tool,
      descriptor: {
        ...tool.descriptor,
        availability: { kind: 'context' as const, key: 'channel', equals: 'slack' },
      },
    };
    const snapshot = snapshotOf([gated]);
    expect(new Session(() => snapshot, { context: { channel: 'slack' } }).descriptors()).toHaveLength(1);
    expect(new Session(() => snapshot, { context: { channel: 'cli' } }).descriptors()).toHaveLength(0);
  });
});

describe('Session.dispatchOpenAI', () => {
  it('parses arguments, runs the call and answers with a tool message', async () => {
    const session = new Session(() => snapshotOf([registeredRepeat()]));
    const message = await session.dispatchOpenAI({
      id: 'c1',
      type: 'function',
      function: { name: 'repeat', arguments: '{"text":"yo"}' },
    });
    expect(message).toEqual({ role: 'tool', tool_call_id: 'c1', content: 'yo' });
  });

  it('answers bad JSON arguments with an error message', async () => {
    const session = new Session(() => snapshotOf([registeredRepeat()]));
    const message = await session.dispatchOpenAI({
      id: 'c1',
      type: 'function',
      function: { name: 'repeat', arguments: '{' },
    });
    expect(message.content).toMatch(/^Error: The arguments of "repeat" are not valid JSON/);
  });
});

describe('Session.dispatchOpenAI with calls of other types', () => {
  it('answers a custom tool call with an error naming its type, and runs nothing', async () => {
    const session = new Session(() => snapshotOf([registeredRepeat()]));
    const message = await session.dispatchOpenAI({ id: 'c2', type: 'custom' });
    expect(message).toEqual({
      role: 'tool',
      tool_call_id: 'c2',
      content: 'Error: Tool calls of type "custom" are not supported here: every tool is a function tool',
    });
  });
});

describe('Session.dispatchOpenAIResponses', () => {
  it('runs every function_call item of a response output and answers each, in order', async () => {
    const session = new Session(() => snapshotOf([registeredRepeat()]));
    const outputs = await session.dispatchOpenAIResponses([
      { type: 'reasoning', id: 'rs_1', summary: [] },
      { type: 'function_call', call_id: 'call_1', name: 'repeat', arguments: '{"text":"a"}' },
      { type: 'message', id: 'msg_1', role: 'assistant', content: [] },
      { type: 'function_call', call_id: 'call_2', name: 'nope', arguments: '{}' },
      { type: 'function_call', call_id: 'call_3', name: 'repeat', arguments: '{' },
    ]);
    expect(outputs.map((o) => [o.type, o.call_id])).toEqual([
      ['function_call_output', 'call_1'],
      ['function_call_output', 'call_2'],
      ['function_call_output', 'call_3'],
    ]);
    expect(outputs[0]?.output).toBe('a');
    expect(outputs[1]?.output).toMatch(/^Error: Unknown tool "nope"/);
    expect(outputs[2]?.output).toMatch(/^Error: The arguments of "repeat" are not valid JSON/);
  });

  it('answers a malformed function_call with an error, and an output that is not an array with nothing', async () => {
    const session = new Session(() => snapshotOf([registeredRepeat()]));
    const [output] = await session.dispatchOpenAIResponses([
      { type: 'function_call', call_id: 'call_1', name: '', arguments: '{}' },
    ]);
    expect(output?.output).toMatch(/^Error: Malformed function_call/);
    expect(await session.dispatchOpenAIResponses(null as unknown as [])).toEqual([]);
  });
});

describe('a tool that binds to its session (RegisteredTool.bindToSession)', () => {
  /** `relay` calls `inner` through whatever session it is bound to, and says which session that is. */
  function relay(): RegisteredTool {
    const entry = fakeTool('relay', 'custom');
    return {
      ...entry,
      executor: { ...entry.executor, run: async () => ({ content: [{ type: 'text', text: 'unbound' }] }) },
      bindToSession: (session) => ({
        ...entry,
        executor: {
          ...entry.executor,
          run: async () => {
            const inner = await session.call('inner', {}, {});
            return { content: [{ type: 'text', text: `${session.id}: ${text(inner.result)}` }] };
          },
        },
      }),
    };
  }

  it("runs the calling session's own copy, whose calls meet that session's checks", async () => {
    const inner = fakeTool('inner', 'custom');
    const snapshot = snapshotOf([relay(), inner]);
    const open = new Session(() => snapshot, { id: 'open' });
    const narrow = new Session(() => snapshot, { id: 'narrow', activeTools: ['relay'] });
    expect(text((await open.call('relay', {})).result)).toBe(
      `open: ${text((await open.call('inner', {})).result)}`,
    );
    expect(text((await narrow.call('relay', {})).result)).toBe(
      'narrow: Tool "inner" is not active in this session',
    );
  });
});
