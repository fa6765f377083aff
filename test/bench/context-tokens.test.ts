import type { ToolHost } from '@toolhost/host';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCatalogHost } from '../../bench/lib/catalog-host.mjs';
import { jsonTokens, loadedDefinitionTokens, sentDefinitionTokens, tokens } from '../../bench/lib/tokens.mjs';

// The counting helpers of bench/context-tokens.mjs count what its output says they count.

describe('token counts', () => {
  it('are the o200k_base BPE token counts, not a length estimate', () => {
    expect(tokens('hello world')).toBe(2); // o200k_base: [24912, 2375]
    const text = 'Create a new issue in a GitHub repository';
    expect(tokens(text)).toBe(encode(text).length);
    expect(tokens(text)).not.toBe(Math.ceil(text.length / 4));
  });

  it('count a value as the JSON a client sends', () => {
    const value = { name: 'read', input_schema: { type: 'object' } };
    expect(jsonTokens(value)).toBe(encode(JSON.stringify(value)).length);
  });
});

describe('definitions per turn over the catalogue', () => {
  let all: ToolHost;
  let deferred: ToolHost;
  beforeAll(async () => {
    all = await createCatalogHost();
    deferred = await createCatalogHost({ tools: { defer: ['*'] } });
  });
  afterAll(async () => {
    await Promise.all([all.close(), deferred.close()]);
  });

  it('puts all 166 catalogue tools in the host, visible', () => {
    expect(all.plan().visible).toHaveLength(166);
  });

  it('leaves deferred schemas out of the Anthropic list a model loads, but not out of the request', () => {
    const list = deferred.session().tools('anthropic', { deferral: 'native-bm25' });
    const loaded = list.filter((entry) => !('defer_loading' in entry && entry.defer_loading === true));
    expect(list).toHaveLength(167);
    expect(loaded.map((entry) => entry.name)).toEqual(['tool_search_tool_bm25']);
    expect(loadedDefinitionTokens(list)).toBe(jsonTokens(loaded));
    expect(sentDefinitionTokens(list)).toBe(jsonTokens(list));
    // The full list carries every schema: far more than the loaded search tool alone.
    expect(sentDefinitionTokens(list)).toBeGreaterThan(100 * loadedDefinitionTokens(list));
  });

  it('counts meta mode as the search tool alone, and the undeferred list as every schema', () => {
    const meta = deferred.session().tools('anthropic');
    expect(meta.map((entry) => entry.name)).toEqual(['tool_search']);
    expect(loadedDefinitionTokens(meta)).toBe(jsonTokens(meta));
    const none = all.session().tools('anthropic', { deferral: 'none' });
    expect(loadedDefinitionTokens(none)).toBe(jsonTokens(none));
    expect(loadedDefinitionTokens(none)).toBeGreaterThan(100 * loadedDefinitionTokens(meta));
  });

  it('counts an MCP tools/list as the {tools} result a client receives', () => {
    const list = all.session().tools('mcp', { deferral: 'none' });
    const wrap = (tools: readonly object[]) => ({ tools });
    expect(loadedDefinitionTokens(list, wrap)).toBe(jsonTokens({ tools: list }));
  });
});
