import { defineTool } from '@toolhost/plugin-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { ToolHost } from '../../src/host/host.js';
import { createHost } from '../../src/index.js';
import { rawStdio } from './raw-stdio.js';

let host: ToolHost | undefined;
let closeServed: (() => Promise<void>) | undefined;
afterEach(async () => {
  await closeServed?.();
  closeServed = undefined;
  await host?.close();
  host = undefined;
});

/** A stdio server on in-memory pipes with `sandbox.pollMicros` as given, and 10 tool calls through it. */
async function tenCalls(pollMicros: number) {
  host = await createHost({
    pluginsDir: false,
    builtins: false,
    configFile: false,
    sandbox: { mode: 'process', pollMicros },
    customTools: [
      defineTool({ name: 'echo', description: 'Echoes', input: z.object({}), execute: () => 'echo' }),
    ],
  });
  const { served, send, answerTo } = await rawStdio(host);
  closeServed = served.close;
  send({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  });
  await answerTo(0);
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  for (let id = 1; id <= 10; id++) {
    send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: {} } });
    await answerTo(id);
    // In-memory pipes answer within one turn; a real pipe's next request comes in a later turn.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return served;
}

describe('serve over stdio between responses', () => {
  it('polls for the next request after each response, for sandbox.pollMicros', async () => {
    // The largest limit: a loaded machine's waits (a full test run on two CPUs) stay under it.
    expect((await tenCalls(10_000)).pollTurns()).toBeGreaterThan(0);
  });

  it('stops polling once its connection has closed, window or not', async () => {
    // After ten quick exchanges a 10 ms limit still leaves a window of a few ms after the last.
    const served = await tenCalls(10_000);
    await served.close();
    const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
    await nextTurn(); // the turn pending at close is the last
    const turns = served.pollTurns();
    for (let i = 0; i < 5; i++) await nextTurn();
    expect(served.pollTurns()).toBe(turns);
  });

  it('with sandbox.pollMicros 0, sleeps at once', async () => {
    expect((await tenCalls(0)).pollTurns()).toBe(0);
  });
});
