import { PassThrough } from 'node:stream';
import { defineTool } from '@toolhost/plugin-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { ToolHost } from '../../src/host/host.js';
import { createHost } from '../../src/index.js';
import { serveStdioRecorded } from '../../src/serve/stdio.js';

let host: ToolHost | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
});

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
};

/** A stdio server on in-memory pipes whose in-flight recorder logs what it is told. */
async function start(options: { maxRunningCalls?: number } = {}) {
  host = await createHost({
    pluginsDir: false,
    builtins: false,
    configFile: false,
    customTools: [
      defineTool({ name: 'echo', description: 'Echoes', input: z.object({}), execute: () => 'echo' }),
      defineTool({
        name: 'hang',
        description: 'Never answers',
        input: z.object({}),
        execute: () => new Promise<string>(() => {}),
      }),
    ],
  });
  const events: string[] = [];
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const lines: unknown[] = [];
  let waiting: (() => void) | undefined;
  stdout.on('data', (chunk: Buffer) => {
    for (const line of `${chunk}`.split('\n').filter(Boolean)) lines.push(JSON.parse(line));
    waiting?.();
  });
  const answerTo = async (id: number) => {
    while (!lines.some((l) => (l as { id?: unknown }).id === id)) {
      await new Promise<void>((resolve) => {
        waiting = resolve;
      });
    }
  };
  await serveStdioRecorded(
    host,
    { stdin, stdout, ...options },
    {
      started: (id, tool) => events.push(`started ${JSON.stringify(id)} ${tool ?? '-'}`),
      answered: (id) => events.push(`answered ${JSON.stringify(id)}`),
      calling: (id, tool) => events.push(`calling ${JSON.stringify(id)} ${tool ?? '-'}`),
    },
  );
  const send = (message: unknown) => stdin.write(`${JSON.stringify(message)}\n`);
  send(INITIALIZE);
  await answerTo(1);
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return { events, send, answerTo };
}

describe('the requests in flight of a stdio session', () => {
  it('are told when read (with the tool called) and when answered; notifications are not requests', async () => {
    const { events, send, answerTo } = await start();
    send({ jsonrpc: '2.0', id: 'two', method: 'tools/call', params: { name: 'echo', arguments: {} } });
    await answerTo('two' as unknown as number);
    expect(events).toEqual(['started 1 -', 'answered 1', 'started "two" echo', 'answered "two"']);
  });

  it('a request the client cancelled is no longer in flight (no response will be sent for it)', async () => {
    const { events, send, answerTo } = await start();
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'hang', arguments: {} } });
    send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3, reason: 'gave up' } });
    send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'echo', arguments: {} } });
    await answerTo(4);
    expect(events.slice(2)).toEqual(['started 3 hang', 'answered 3', 'started 4 echo', 'answered 4']);
  });

  it('a call that waits its turn names no tool until it runs (a crash meanwhile is not its tool’s)', async () => {
    const { events, send, answerTo } = await start({ maxRunningCalls: 1 });
    // Not in the turn of `initialized` (the SDK's path would take them, unbounded).
    await new Promise((resolve) => setImmediate(resolve));
    // Read together: the first runs (and hangs), the second waits for it.
    send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'hang', arguments: {} } });
    send({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'echo', arguments: {} } });
    send({ jsonrpc: '2.0', id: 7, method: 'ping' });
    await answerTo(7);
    expect(events.slice(2)).toEqual([
      'started 5 hang',
      'started 6 echo',
      'calling 6 -',
      'started 7 -',
      'answered 7',
    ]);
    // The running call is cancelled and ends: the waiting one starts, naming its tool.
    send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5, reason: 'gave up' } });
    await answerTo(6);
    expect(events.slice(7)).toEqual(['answered 5', 'calling 6 echo', 'answered 6']);
  });
});
