import { describe, expect, it } from 'vitest';
import { parseDescribeReply } from '../../../src/sources/plugins/manifest.js';

// What a plugin's isolate may send: a bundle that skips definePlugin's checks (it can fake the
// brand) reaches the host with any manifest, so the host checks the limits again.
const tool = (name: string, description = 'd') => ({ name, description, inputSchema: { type: 'object' } });
const manifest = (tools: unknown[], extra: Record<string, unknown> = {}) => ({
  ok: true,
  manifest: { id: 'p', permissions: {}, hooks: { before: false, after: false }, tools, ...extra },
});

describe('parseDescribeReply size limits', () => {
  it('refuses more than 256 tools with the count and the limit, not a schema path', () => {
    const tools = Array.from({ length: 300 }, (_, i) => tool(`t${i}`));
    expect(parseDescribeReply(manifest(tools))).toEqual({
      ok: false,
      error:
        'the plugin declares 300 tools; a plugin may declare at most 256 (MAX_TOOLS_PER_PLUGIN): split it into several plugins',
    });
  });

  it('refuses descriptions over the limit, naming up to three tools, and keeps the names to list', () => {
    const tools = ['a', 'b', 'c', 'd', 'fine'].map((n) => tool(n, n === 'fine' ? 'ok' : 'x'.repeat(10_001)));
    const reply = parseDescribeReply(manifest(tools));
    expect(reply).toEqual({
      ok: false,
      error:
        'tool "a" has a description of 10001 characters; the limit is 10000 (MAX_DESCRIPTION_CHARS): shorten it; ' +
        'tool "b" has a description of 10001 characters; the limit is 10000 (MAX_DESCRIPTION_CHARS): shorten it; ' +
        'tool "c" has a description of 10001 characters; the limit is 10000 (MAX_DESCRIPTION_CHARS): shorten it; ' +
        'and 1 more tools like these',
      toolNames: ['a', 'b', 'c', 'd', 'fine'],
    });
    expect(parseDescribeReply(manifest([], { description: 'y'.repeat(10_001) }))).toMatchObject({
      ok: false,
      error:
        'the plugin has a description of 10001 characters; the limit is 10000 (MAX_DESCRIPTION_CHARS): shorten it',
    });
  });

  it('accepts 256 tools at the description limit', () => {
    const tools = Array.from({ length: 256 }, (_, i) => tool(`t${i}`, 'x'.repeat(10_000)));
    expect(parseDescribeReply(manifest(tools))).toMatchObject({ ok: true });
  });

  it('drops a failed reply’s tool names when there are too many to list, keeping its error', () => {
    const toolNames = Array.from({ length: 300 }, (_, i) => `t${i}`);
    expect(parseDescribeReply({ ok: false, error: 'boom', toolNames })).toEqual({ ok: false, error: 'boom' });
  });
});

describe('parseDescribeReply input schemas', () => {
  const withInput = (inputSchema: Record<string, unknown>) => [
    tool('first'),
    { name: 'odd', description: 'd', inputSchema },
  ];

  it('refuses a tool whose inputSchema is not of type "object", naming the tool and keeping the names to list', () => {
    for (const type of ['string', 'array', ['object', 'null'], null]) {
      const reply = parseDescribeReply(manifest(withInput({ type })));
      expect(reply).toEqual({
        ok: false,
        error: expect.stringContaining(
          `tool "odd" declares an inputSchema of type ${JSON.stringify(type)}; a tool's input must be an object schema`,
        ),
        toolNames: ['first', 'odd'],
      });
    }
  });

  it('sets type "object" on an inputSchema without a type, and leaves an object schema as it is', () => {
    const anyOf = [{ type: 'object', properties: { a: { type: 'string' } } }];
    const reply = parseDescribeReply(manifest(withInput({ anyOf })));
    if (!reply.ok) throw new Error(reply.error);
    expect(reply.manifest.tools.map((t) => t.inputSchema)).toEqual([
      { type: 'object' },
      { anyOf, type: 'object' },
    ]);
  });
});

describe('parseDescribeReply deferLoading', () => {
  it("keeps a tool's deferLoading flag, and refuses one that is not a boolean with its path", () => {
    const deferred = { ...tool('t'), deferLoading: true };
    expect(parseDescribeReply(manifest([deferred]))).toMatchObject({
      ok: true,
      manifest: { tools: [{ name: 't', deferLoading: true }] },
    });
    const bad = parseDescribeReply(manifest([{ ...tool('t'), deferLoading: 'yes' }]));
    expect(bad).toMatchObject({ ok: false, error: expect.stringContaining('tools[0].deferLoading') });
  });
});
