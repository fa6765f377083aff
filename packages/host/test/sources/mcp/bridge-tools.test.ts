import { describe, expect, it } from 'vitest';
import {
  bridgedToolName,
  callFailureMessage,
  protocolCode,
  toBridgedResult,
} from '../../../src/sources/mcp/bridge-tools.js';

const NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

describe('bridgedToolName', () => {
  it('prefixes with mcp__<server>__ and keeps allowed characters', () => {
    expect(bridgedToolName('everything', 'get-sum')).toBe('mcp__everything__get-sum');
  });

  it('turns every other character into _', () => {
    expect(bridgedToolName('my.server', 'files/read file:v2')).toBe('mcp__my_server__files_read_file_v2');
    expect(bridgedToolName('s', 'héllo')).toBe('mcp__s__h_llo');
  });

  it('shortens long names to 64 characters, deterministically, with a hash of the original', () => {
    const long = `tool_${'x'.repeat(100)}`;
    const name = bridgedToolName('server', long);
    expect(name).toHaveLength(64);
    expect(name).toMatch(NAME_PATTERN);
    expect(name).toMatch(/^mcp__server__tool_x+_[0-9a-f]{8}$/);
    expect(bridgedToolName('server', long)).toBe(name);
    // Same prefix, different originals: different names.
    expect(bridgedToolName('server', `${long}y`)).not.toBe(name);
    // Originals that sanitize alike still get different hashes.
    expect(bridgedToolName('server', `${long}.`)).not.toBe(bridgedToolName('server', `${long}_`));
  });

  it('leaves a name of exactly 64 characters alone', () => {
    const tool = 'y'.repeat(64 - 'mcp__s__'.length);
    expect(bridgedToolName('s', tool)).toBe(`mcp__s__${tool}`);
  });
});

describe('toBridgedResult', () => {
  it('keeps content, isError, structuredContent and _meta; drops unknown fields', () => {
    expect(
      toBridgedResult('srv', 't', {
        content: [{ type: 'text', text: 'x', extra: 1 }],
        isError: true,
        structuredContent: { a: 1 },
        _meta: { b: 2 },
      }),
    ).toEqual({
      content: [{ type: 'text', text: 'x' }],
      isError: true,
      structuredContent: { a: 1 },
      meta: { b: 2 },
    });
  });

  it('keeps valid block annotations and drops invalid ones', () => {
    const result = toBridgedResult('srv', 't', {
      content: [
        { type: 'text', text: 'a', annotations: { priority: 1, audience: ['assistant'] } },
        { type: 'text', text: 'b', annotations: { audience: ['robots'] } },
      ],
    });
    expect(result.content).toEqual([
      { type: 'text', text: 'a', annotations: { priority: 1, audience: ['assistant'] } },
      { type: 'text', text: 'b' },
    ]);
  });

  it('throws a message naming the server and tool for an invalid result', () => {
    expect(() => toBridgedResult('srv', 'tool', { content: [{ type: 'video' }] })).toThrow(
      /^MCP server "srv" returned an invalid result for tool "tool": at "content.0"/,
    );
    expect(() => toBridgedResult('srv', 'tool', 'nope')).toThrow(/MCP server "srv"/);
  });
});

describe('failure messages', () => {
  it('reads JSON-RPC codes as data, ignoring HTTP statuses', () => {
    expect(protocolCode({ code: -32001 })).toBe(-32001);
    expect(protocolCode({ code: 404 })).toBeUndefined();
    expect(protocolCode(new Error('x'))).toBeUndefined();
  });

  it("names the server for timeouts, closed connections (the SDK's own codes) and refusals", () => {
    const limit = { ms: 500, setting: 'limits.timeoutMs' };
    expect(
      callFailureMessage('s', 't', { code: 'REQUEST_TIMEOUT', message: 'Request timed out' }, limit),
    ).toBe('MCP server "s" did not answer within 500 ms (tool "t"; limit: limits.timeoutMs)');
    expect(callFailureMessage('s', 't', { code: 'CONNECTION_CLOSED' }, limit)).toBe(
      'MCP server "s" is unavailable: the connection closed while tool "t" was running',
    );
    expect(
      callFailureMessage('s', 't', Object.assign(new Error('bad params'), { code: -32602 }), limit),
    ).toBe('MCP server "s" answered the call to tool "t" with an error: bad params');
    expect(callFailureMessage('s', 't', new Error('boom'), limit)).toBe(
      'MCP server "s" failed to run tool "t": boom',
    );
  });
});
