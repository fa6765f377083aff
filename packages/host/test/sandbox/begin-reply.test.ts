/**
 * The runtime's `begin` answers a call whose tool answered without waiting by its return value,
 * so the host reads the reply off the entry with no trip back through the bridge's `reply`; a
 * call that waits (an async `execute`) replies through the bridge, as before. Driven here on the
 * runtime itself: a real prelude, a real isolate, and a bridge that records what reaches it.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { TEXT_REPLY_MARK } from '@toolhost/plugin-sdk/protocol';
import ivm from 'isolated-vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachRuntime, type Entry } from '../../src/sandbox/isolate-bridge.js';
import { readReply } from '../../src/sandbox/outcomes.js';
import { loadPrelude } from '../../src/sandbox/prelude.js';
import { bundlePlugin } from '../../src/sources/plugins/bundle.js';
import { callRequest } from './call-request.js';

const SOURCE = `import { definePlugin, defineTool } from '@toolhost/plugin-sdk';
import * as z from 'zod';
export default definePlugin({
  id: 'answers',
  tools: [
    defineTool({ name: 'now', description: 'Answers at once', input: z.object({ text: z.string() }), execute: ({ text }) => 'now: ' + text }),
    defineTool({ name: 'later', description: 'Answers after a microtask', input: z.object({}), execute: async () => { await null; return 'later'; } }),
    defineTool({ name: 'throws', description: 'Throws at once', input: z.object({}), execute: () => { throw new Error('nope'); } }),
  ],
});
`;

let dir = '';
let isolate: ivm.Isolate;
let entry: Entry;
const replies: [string, string][] = [];
let calls = 0;

/** `begin` of one call: what it returned, and what reached the bridge's `reply` during it. */
function begin(tool: string, input: unknown): { returned: unknown; bridged: [string, string][] } {
  calls += 1;
  replies.length = 0;
  const request = JSON.stringify(callRequest(calls, tool, input, 100_000));
  const returned = entry.begin.applySync(undefined, ['call', request], {
    arguments: { copy: true },
  });
  return { returned, bridged: [...replies] };
}

describe("the runtime's begin", () => {
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'toolhost-begin-'));
    await writeFile(path.join(dir, 'index.ts'), SOURCE);
    const built = await bundlePlugin(path.join(dir, 'index.ts'));
    if (!built.ok) throw new Error(built.error);
    const prelude = await loadPrelude(built.code);
    isolate = new ivm.Isolate({
      memoryLimit: 64,
      ...(prelude.snapshot === undefined ? {} : { snapshot: prelude.snapshot }),
    });
    const context = await isolate.createContext();
    const none = new ivm.Callback(() => undefined);
    entry = await attachRuntime(isolate, context, prelude, {
      log: none,
      progress: none,
      request: none,
      reply: new ivm.Callback((callId: string, json: string) => {
        replies.push([String(callId), String(json)]);
      }),
      entropy: new ivm.Callback(() => Buffer.alloc(32).toString('base64')),
    });
    const script = await isolate.compileScript(built.code, { filename: 'plugin.js' });
    await script.run(context);
  });

  afterAll(async () => {
    isolate?.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  it("returns the reply of a tool that answered at once, and sends nothing through the bridge's reply", () => {
    const { returned, bridged } = begin('now', { text: 'hi' });
    expect(bridged).toEqual([]);
    // A string result leaves as a text reply: the mark, then the text as it is.
    expect(returned).toBe(`${TEXT_REPLY_MARK}now: hi`);
    expect(readReply(returned as string)).toEqual({
      kind: 'ok',
      result: { content: [{ type: 'text', text: 'now: hi' }] },
    });
  });

  it('returns the error reply of a tool that threw at once, and of an input its schema refuses', () => {
    const threw = begin('throws', {});
    expect(threw.bridged).toEqual([]);
    expect(JSON.parse(threw.returned as string)).toMatchObject({
      kind: 'error',
      message: expect.stringMatching(/nope/),
    });
    const refused = begin('now', { text: 3 });
    expect(refused.bridged).toEqual([]);
    expect(JSON.parse(refused.returned as string)).toMatchObject({ kind: 'invalid-input' });
  });

  it('returns nothing for a tool that waits: its reply goes through the bridge, once', () => {
    const { returned, bridged } = begin('later', {});
    expect(returned).toBeUndefined();
    expect(bridged).toHaveLength(1);
    expect(bridged[0]?.[0]).toBe(`c${calls}`);
    expect(bridged[0]?.[1]).toBe(`${TEXT_REPLY_MARK}later`);
    expect(readReply(bridged[0]?.[1] as string)).toEqual({
      kind: 'ok',
      result: { content: [{ type: 'text', text: 'later' }] },
    });
  });
});
