import { PassThrough } from 'node:stream';
import { createHost, serveStdio, type ToolHost } from '@toolhost/host';
import { defineTool } from '@toolhost/plugin-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { countChangeListeners, INITIALIZE } from './mcp-http-helpers.js';

let host: ToolHost | undefined;

afterEach(async () => {
  await host?.close();
  host = undefined;
});

/** A stdio server on in-memory pipes, initialized; `listeners` counts the host's change listeners. */
async function start() {
  host = await createHost({
    pluginsDir: false,
    builtins: false,
    configFile: false,
    customTools: [
      defineTool({ name: 'echo', description: 'Echoes', input: z.object({}), execute: () => 'echo' }),
    ],
  });
  const listeners = countChangeListeners(host);
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const served = await serveStdio(host, { stdin, stdout });
  const answer = new Promise<unknown>((resolve) =>
    stdout.once('data', (line: Buffer) => resolve(JSON.parse(`${line}`))),
  );
  stdin.write(`${JSON.stringify(INITIALIZE)}\n`);
  expect(await answer).toMatchObject({ id: 1, result: { serverInfo: { name: 'toolhost' } } });
  return { served, stdin, listeners };
}

describe('MCP stdio server lifecycle', () => {
  it('close() removes its host change listener and stops reading stdin', async () => {
    const { served, stdin, listeners } = await start();
    expect(listeners.count).toBe(1);
    expect(stdin.listenerCount('data')).toBe(1);
    await served.close();
    await served.closed;
    expect(listeners.count).toBe(0);
    expect(stdin.listenerCount('data')).toBe(0);
    expect(stdin.listenerCount('end')).toBe(0);
  });

  it('ends the session when stdin ends (the client went away), removing the listener', async () => {
    const { served, stdin, listeners } = await start();
    stdin.end();
    stdin.resume(); // let 'end' be emitted although the transport no longer reads
    await served.closed;
    expect(listeners.count).toBe(0);
    expect(stdin.listenerCount('data')).toBe(0);
  });
});
