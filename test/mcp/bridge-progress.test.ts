import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHost, type ToolHost } from '@toolhost/host';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The bridge reads a bridged server's progress at the transport, in the order it arrived: the
 * SDK client's own progress callback runs a microtask later than the response it came with, so
 * the last notifications of a quick tool were lost (typescript-sdk #2580).
 */

const here = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(here, '../..');
const SERVER = path.join(REPO, 'test/fixtures/servers/progress-server.mjs');
const SDK = path.join(REPO, 'node_modules/@modelcontextprotocol/sdk');
const CALLS = 40;

describe("a bridged server's progress", () => {
  let host: ToolHost;

  beforeAll(async () => {
    host = await createHost({
      builtins: false,
      pluginsDir: false,
      configFile: false,
      mcpServers: { quick: { command: process.execPath, args: [SERVER, SDK], sandbox: false } },
    });
  });
  afterAll(() => host?.close());

  it('reaches the caller whole, every notification of every call, before the result', async () => {
    const session = host.session();
    let seen = 0;
    for (let i = 0; i < CALLS; i++) {
      const steps: number[] = [];
      const outcome = await session.call('mcp__quick__steps', {}, undefined, {
        observer: { progress: (done) => steps.push(done) },
      });
      expect(outcome.result.content).toEqual([{ type: 'text', text: 'done' }]);
      seen += steps.length;
    }
    expect(seen).toBe(CALLS * 3);
  });
});
