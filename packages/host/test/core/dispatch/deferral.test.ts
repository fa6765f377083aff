import type Anthropic from '@anthropic-ai/sdk';
import { defineTool } from '@toolhost/plugin-sdk';
import type OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { AnthropicToolEntry } from '../../../src/core/dispatch/adapters/anthropic.js';
import type {
  OpenAIResponsesToolEntry,
  OpenAIToolSearchOutput,
} from '../../../src/core/dispatch/adapters/openai.js';
import { deferredNames, estimateTokens } from '../../../src/core/dispatch/deferral.js';
import { type HostSnapshot, Session } from '../../../src/core/dispatch/session.js';
import { buildRegistry } from '../../../src/core/register/registry.js';
import { DEFAULT_LIMITS } from '../../../src/core/wrap/wrapper.js';
import { inProcessTool } from '../../../src/sources/in-process.js';
import type { RegisteredTool, ToolPolicy } from '../../../src/types.js';

function tool(name: string, description: string, deferLoading?: boolean): RegisteredTool {
  return inProcessTool(
    defineTool({
      name,
      description,
      input: z.object({ text: z.string().optional() }),
      ...(deferLoading === undefined ? {} : { deferLoading }),
      execute: () => `ran ${name}`,
    }),
    { source: 'custom' },
  );
}

const catalog = (): RegisteredTool[] => [
  tool('weather_now', 'Current weather for a city'),
  tool('github_create_issue', 'Create a new issue in a GitHub repository'),
  tool('github_list_pulls', 'List pull requests of a GitHub repository'),
  tool('slack_post_message', 'Post a message to a Slack channel'),
  tool('notion_search', 'Search pages in a Notion workspace'),
];

function snapshotOf(tools: RegisteredTool[], policy: ToolPolicy = {}): HostSnapshot {
  return {
    version: 1,
    registry: buildRegistry([{ kind: 'custom', id: 'custom', tools }], policy),
    policy,
    availability: { env: {} },
    limits: DEFAULT_LIMITS,
    hooks: [],
  };
}

function sessionOf(policy: ToolPolicy, tools = catalog()): Session {
  const snapshot = snapshotOf(tools, policy);
  return new Session(() => snapshot);
}

const names = (list: readonly { name?: string; type?: string }[]) => list.map((t) => t.name ?? t.type);
const text = (result: { content: readonly { type: string; text?: string }[] }) =>
  result.content.map((c) => c.text ?? '').join('\n');

describe('deferral policy', () => {
  it('tools.defer patterns (names and groups) defer; catalog.always keeps a tool loaded over them', () => {
    expect(sessionOf({ defer: ['github_*'] }).deferredTools()).toEqual([
      'github_create_issue',
      'github_list_pulls',
    ]);
    expect(
      sessionOf({ defer: ['group:custom'], catalog: { always: ['weather_*'] } }).deferredTools(),
    ).toEqual(['github_create_issue', 'github_list_pulls', 'notion_search', 'slack_post_message']);
  });

  it("a descriptor's own deferLoading defers it; config defers nothing by default", () => {
    const tools = [...catalog(), tool('rare_tool', 'Something rarely needed', true)];
    expect(sessionOf({}, tools).deferredTools()).toEqual(['rare_tool']);
    expect(sessionOf({}).deferredTools()).toEqual([]);
  });

  it('auto mode: past the token budget every tool not kept by always or deferLoading:false is deferred', () => {
    const tools = [...catalog(), tool('pinned', 'Always wanted', false)];
    const total = tools.reduce((sum, t) => sum + estimateTokens(t.descriptor), 0);
    expect(sessionOf({ catalog: { autoBudgetTokens: total } }, tools).deferredTools()).toEqual([]);
    expect(
      sessionOf({ catalog: { autoBudgetTokens: total - 1, always: ['weather_now'] } }, tools).deferredTools(),
    ).toEqual(['github_create_issue', 'github_list_pulls', 'notion_search', 'slack_post_message']);
  });

  it('deferredNames leaves out nothing when no rule and no descriptor asks for deferral', () => {
    const tools = catalog();
    const registry = buildRegistry([{ kind: 'custom', id: 'custom', tools }], {});
    expect(
      deferredNames(
        tools.map((t) => t.descriptor),
        registry.tools,
        {},
      ).size,
    ).toBe(0);
  });
});

describe('meta mode (MCP, Chat Completions, any loop)', () => {
  it('leaves deferred tools out, adds tool_search, and a search loads what it found at the end of the list', async () => {
    const session = sessionOf({ defer: ['github_*', 'slack_*', 'notion_*'] });
    let changes = 0;
    session.onToolsChanged(() => {
      changes += 1;
    });
    expect(names(session.tools('mcp'))).toEqual(['weather_now', 'tool_search', 'call_tool']);
    const outcome = await session.call('tool_search', { query: 'create github issue', limit: 1 });
    expect(outcome.result.isError).toBeUndefined();
    expect(JSON.parse(text(outcome.result))).toEqual([
      expect.objectContaining({ name: 'github_create_issue', inputSchema: expect.any(Object) }),
    ]);
    expect(changes).toBe(1);
    expect(names(session.tools('mcp'))).toEqual([
      'weather_now',
      'tool_search',
      'call_tool',
      'github_create_issue',
    ]);
    // call_tool is MCP's: a loop that reads the list every turn sees what a search loaded.
    expect(names(session.tools('openai').map((t) => t.function))).toEqual([
      'weather_now',
      'tool_search',
      'github_create_issue',
    ]);
    // Searching again for a tool already loaded changes nothing.
    await session.call('tool_search', { query: 'create github issue', limit: 1 });
    expect(changes).toBe(1);
  });

  it('with searchLoads false a search returns definitions, loads nothing and changes no list; call_tool runs them', async () => {
    const snapshot = snapshotOf(catalog(), { defer: ['github_*'] });
    const session = new Session(() => snapshot, { searchLoads: false });
    let changes = 0;
    session.onToolsChanged(() => {
      changes += 1;
    });
    const before = names(session.tools('mcp'));
    const outcome = await session.call('tool_search', { query: 'create github issue', limit: 1 });
    expect(JSON.parse(text(outcome.result))).toEqual([
      expect.objectContaining({ name: 'github_create_issue' }),
    ]);
    expect(changes).toBe(0);
    expect(session.loadedTools()).toEqual([]);
    expect(names(session.tools('mcp'))).toEqual(before);
    const called = await session.call('call_tool', { name: 'github_create_issue', arguments: {} });
    expect(text(called.result)).toBe('ran github_create_issue');
  });

  it("call_tool refuses what a direct call refuses, in the direct call's words", async () => {
    const session = sessionOf({ defer: ['github_*'], deny: ['github_list_pulls'] });
    const direct = await session.call('github_list_pulls', {});
    const through = await session.call('call_tool', { name: 'github_list_pulls' });
    expect(through.result).toEqual(direct.result);
    expect(through.status).toBe('blocked');
    const extra = await session.call('call_tool', { name: 'weather_now', city: 'Oslo' });
    expect(text(extra.result)).toBe(
      'Invalid input for tool "call_tool": at "city": is not a key of call_tool (put the tool\'s input under "arguments")',
    );
  });

  it('a deferred tool is callable before any search: deferral changes what is shown, not what may be called', async () => {
    const session = sessionOf({ defer: ['github_*'] });
    const outcome = await session.call('github_list_pulls', {});
    expect(text(outcome.result)).toBe('ran github_list_pulls');
  });

  it('bad search input is an error result naming the field', async () => {
    const session = sessionOf({ defer: ['github_*'] });
    const outcome = await session.call('tool_search', { query: '' });
    expect(outcome.result.isError).toBe(true);
    expect(outcome.status).toBe('invalid-input');
    expect(text(outcome.result)).toBe(
      'Invalid input for tool "tool_search": at "query": must be a non-empty string',
    );
    expect(text((await session.call('tool_search', { query: 'x', limit: 99 })).result)).toBe(
      'Invalid input for tool "tool_search": at "limit": must be an integer from 1 to 10',
    );
  });

  it('the meta search runs under the hooks like any call: they see it, and a block stops it before anything loads', async () => {
    const session = sessionOf({ defer: ['github_*'] });
    const seen: string[] = [];
    const dispose = session.addHooks({
      name: 'audit',
      beforeToolCall: (event) => {
        seen.push(`before ${event.toolName} ${JSON.stringify(event.input)}`);
        return JSON.stringify(event.input).includes('secret')
          ? { block: true, reason: 'no searching for secrets' }
          : undefined;
      },
      afterToolCall: (event) => {
        seen.push(`after ${event.toolName} ${event.result.isError === true ? 'error' : 'ok'}`);
      },
    });
    const blocked = await session.call('tool_search', { query: 'secret pull requests' });
    expect(blocked.status).toBe('blocked');
    expect(text(blocked.result)).toContain('no searching for secrets');
    expect(session.loadedTools()).toEqual([]);
    const found = await session.call('tool_search', { query: 'pull requests' });
    expect(found.status).toBe('ok');
    expect(session.loadedTools()).toContain('github_list_pulls');
    expect(seen).toEqual([
      'before tool_search {"query":"secret pull requests","limit":5}',
      'before tool_search {"query":"pull requests","limit":5}',
      'after tool_search ok',
    ]);
    dispose();
  });

  it("{deferral: 'none'} lists every tool, and nothing deferred means no tool_search", () => {
    expect(names(sessionOf({ defer: ['github_*'] }).tools('mcp', { deferral: 'none' }))).toHaveLength(5);
    expect(names(sessionOf({}).tools('mcp'))).not.toContain('tool_search');
  });
});

describe('a denied tool stays uncallable, whatever search finds', () => {
  it('a tool denied by policy is never a search result and a call to it is refused', async () => {
    const session = sessionOf({ defer: ['github_*'], deny: ['github_create_issue'] });
    expect(session.search('create github issue').map((h) => h.name)).not.toContain('github_create_issue');
    const found = await session.call('tool_search', { query: 'create github issue' });
    expect(text(found.result)).not.toContain('github_create_issue');
    const call = await session.call('github_create_issue', {});
    expect(call.status).toBe('blocked');
    expect(text(call.result)).toContain('denied');
  });

  it('a tool loaded by search and denied afterwards (config reload) leaves the list and is refused', async () => {
    let snapshot = snapshotOf(catalog(), { defer: ['github_*'] });
    const session = new Session(() => snapshot);
    await session.call('tool_search', { query: 'create github issue', limit: 1 });
    expect(names(session.tools('mcp'))).toContain('github_create_issue');
    snapshot = snapshotOf(catalog(), { defer: ['github_*'], deny: ['github_create_issue'] });
    expect(names(session.tools('mcp'))).not.toContain('github_create_issue');
    expect(session.check('github_create_issue')).toMatchObject({ ok: false, refusal: 'denied' });
    expect(session.load(['github_create_issue'])).toEqual({ active: [], skipped: ['github_create_issue'] });
  });

  it('an inactive tool is not found and cannot be loaded', () => {
    const session = sessionOf({ defer: ['github_*'] });
    session.setActiveToolsByName(['weather_now', 'github_list_pulls']);
    expect(session.search('github issue pull').map((h) => h.name)).toEqual(['github_list_pulls']);
    expect(session.load(['github_create_issue']).skipped).toEqual(['github_create_issue']);
  });
});

describe('Anthropic shapes', () => {
  it('native-bm25 / native-regex: deferred tools carry defer_loading and the server search tool is added', () => {
    const session = sessionOf({ defer: ['github_*'] });
    const bm25: Anthropic.ToolUnion[] = session.tools('anthropic', { deferral: 'native-bm25' });
    expect(bm25).toEqual([
      expect.objectContaining({ name: 'github_create_issue', defer_loading: true }),
      expect.objectContaining({ name: 'github_list_pulls', defer_loading: true }),
      expect.not.objectContaining({ defer_loading: true }),
      expect.not.objectContaining({ defer_loading: true }),
      expect.not.objectContaining({ defer_loading: true }),
      { type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' },
    ]);
    expect(session.tools('anthropic', { deferral: 'native-regex' }).at(-1)).toEqual({
      type: 'tool_search_tool_regex_20251119',
      name: 'tool_search_tool_regex',
    });
  });

  it('deferring every tool keeps the search tool loaded, so the request is never all-deferred', () => {
    const session = sessionOf({ defer: ['*'] });
    for (const deferral of ['native-bm25', 'native-regex', 'client'] as const) {
      const loaded = session
        .tools('anthropic', { deferral })
        .filter((t: AnthropicToolEntry) => !('defer_loading' in t));
      expect(loaded).toHaveLength(1);
    }
    expect(names(session.tools('anthropic'))).toEqual(['tool_search']);
  });

  it('client: tool_search is answered with tool_reference blocks naming deferred tools only', async () => {
    const session = sessionOf({ defer: ['github_*'] });
    const tools: Anthropic.ToolUnion[] = session.tools('anthropic', { deferral: 'client' });
    expect(tools.at(-1)).toMatchObject({ name: 'tool_search', input_schema: { type: 'object' } });
    const [result] = await session.dispatchAll([
      { type: 'tool_use', id: 'tu_1', name: 'tool_search', input: { query: 'github pull requests' } },
    ]);
    const param: Anthropic.ToolResultBlockParam = result as Anthropic.ToolResultBlockParam;
    expect(param).toEqual({
      type: 'tool_result',
      tool_use_id: 'tu_1',
      content: [
        { type: 'tool_reference', tool_name: 'github_list_pulls' },
        { type: 'tool_reference', tool_name: 'github_create_issue' },
      ],
    });
    // A query matching only loaded tools references nothing (they are not deferred).
    expect(text(session.toolSearchResult('tu_2', { query: 'weather' }))).toBe('No tool matches "weather"');
  });
});

describe('OpenAI Responses shapes', () => {
  it('hosted: defer_loading on deferred functions plus {type: "tool_search"}', () => {
    const session = sessionOf({ defer: ['github_*'] });
    const tools: OpenAI.Responses.Tool[] = session.tools('openai-responses', { deferral: 'hosted' });
    expect(tools.filter((t) => 'defer_loading' in t).map((t) => (t as { name: string }).name)).toEqual([
      'github_create_issue',
      'github_list_pulls',
    ]);
    expect(tools.at(-1)).toEqual({ type: 'tool_search' });
  });

  it('client: deferred tools left out; a tool_search_call is answered with tool_search_output', () => {
    const session = sessionOf({ defer: ['github_*'] });
    const tools: OpenAIResponsesToolEntry[] = session.tools('openai-responses', { deferral: 'client' });
    const sdkTools: OpenAI.Responses.Tool[] = tools;
    expect(sdkTools.map((t) => (t as { name?: string }).name ?? t.type)).toEqual([
      'notion_search',
      'slack_post_message',
      'weather_now',
      'tool_search',
    ]);
    expect(tools.at(-1)).toMatchObject({
      type: 'tool_search',
      execution: 'client',
      parameters: { type: 'object' },
    });
    const outputs = session.dispatchOpenAIToolSearch([
      { type: 'message' },
      {
        type: 'tool_search_call',
        call_id: 'call_1',
        execution: 'client',
        arguments: { query: 'create issue', limit: 1 },
      },
      { type: 'tool_search_call', call_id: 'call_2', execution: 'client', arguments: '{"query": ""}' },
    ]);
    const items: OpenAI.Responses.ResponseInputItem[] = outputs;
    expect(items).toHaveLength(2);
    expect(outputs[0]).toEqual({
      type: 'tool_search_output',
      call_id: 'call_1',
      execution: 'client',
      status: 'completed',
      tools: [
        expect.objectContaining({ type: 'function', name: 'github_create_issue', defer_loading: true }),
      ],
    } satisfies OpenAIToolSearchOutput);
    expect(outputs[1]?.tools).toEqual([]);
  });

  it('an unknown deferral mode for a format is a TypeError listing the modes', () => {
    const session = sessionOf({});
    expect(() => session.tools('mcp', { deferral: 'hosted' as never })).toThrow(
      'session.tools("mcp", {deferral: "hosted"}): unknown deferral mode for this format; use one of meta, none',
    );
  });
});

describe('order', () => {
  it('is the plan order whatever order the tools were registered in, and the same on every call', () => {
    const a = sessionOf({ defer: ['github_*'] });
    const b = sessionOf({ defer: ['github_*'] }, catalog().reverse());
    for (const deferral of ['meta', 'native-bm25', 'client'] as const) {
      expect(JSON.stringify(a.tools('anthropic', { deferral }))).toBe(
        JSON.stringify(b.tools('anthropic', { deferral })),
      );
    }
    expect(JSON.stringify(a.tools('openai-responses', { deferral: 'hosted' }))).toBe(
      JSON.stringify(b.tools('openai-responses', { deferral: 'hosted' })),
    );
  });
});
