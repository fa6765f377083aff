import { describe, expect, it } from 'vitest';
import { askThrough } from '../../src/sources/ask.js';
import type { InputAsker } from '../../src/types.js';

const echo: InputAsker = async (requests) =>
  Object.fromEntries(Object.keys(requests).map((key) => [key, { action: 'accept', content: {} }]));
const form = {
  method: 'elicitation/create',
  params: { message: 'Name?', requestedSchema: { type: 'object' } },
};

describe("a tool's ctx.ask, checked on the host", () => {
  it('hands well-formed requests to the asker and returns its answers', async () => {
    await expect(askThrough(echo, { requests: { who: form } })).resolves.toEqual({
      who: { action: 'accept', content: {} },
    });
  });

  it("refuses the approval form's key: a tool cannot pose as the host's approval", async () => {
    await expect(askThrough(echo, { requests: { approval: form } })).rejects.toThrow(
      `ctx.ask: at "requests.approval": "approval" is the host's own key`,
    );
  });

  it('refuses an unknown method, too many requests, and none', async () => {
    await expect(askThrough(echo, { requests: { x: { method: 'tools/call', params: {} } } })).rejects.toThrow(
      /^ctx\.ask: at "requests\.x\.method"/,
    );
    const nine = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`k${i}`, form]));
    await expect(askThrough(echo, { requests: nine })).rejects.toThrow('at most 8 requests at once');
    await expect(askThrough(echo, { requests: {} })).rejects.toThrow('ask for at least one thing');
  });

  it('says so when the call has no MCP client to ask', async () => {
    await expect(askThrough(undefined, { requests: { who: form } })).rejects.toThrow(
      'ctx.ask: this call has no MCP client to ask',
    );
  });
});
