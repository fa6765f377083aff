import { mkdtemp, rm } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { startEarlyStdio } from '../../packages/host/dist/serve/early-stdio.js';

/**
 * The early answers of `toolhost serve` read the client's first lines themselves and hand them
 * to the host's transport: what the client sent must reach the host byte for byte, however the
 * pipe cut it into chunks.
 */

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

const line = (message: unknown) => `${JSON.stringify(message)}\n`;

describe('early stdio handover', () => {
  let root: string | undefined;
  afterEach(async () => {
    if (root !== undefined) await rm(root, { recursive: true, force: true });
  });

  it('replays a character whose bytes came in two chunks whole, in a kept line and in the unfinished one', async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'early-stdio-'));
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const early = startEarlyStdio({ root, key: 'k', version: '0.0.0', stdin, stdout });
    const initialize = line({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    const call = line({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'café' } },
    });
    const unfinished = line({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: '✓' } });
    const callBytes = Buffer.from(call);
    const cut = callBytes.indexOf(Buffer.from('é')) + 1; // after the first of é's two bytes
    const unfinishedBytes = Buffer.from(unfinished);
    const cut2 = unfinishedBytes.indexOf(Buffer.from('✓')) + 2; // two of ✓'s three bytes
    stdin.write(initialize);
    stdin.write(callBytes.subarray(0, cut));
    stdin.write(callBytes.subarray(cut));
    stdin.write(unfinishedBytes.subarray(0, cut2));
    // Each write reaches the early reader in its own turn.
    await new Promise((resolve) => setImmediate(resolve));
    const handed = early.handover();
    stdin.end(unfinishedBytes.subarray(cut2));
    const replayed = (await readAll(handed.stdin)).toString('utf8');
    expect(replayed).toBe(initialize + call + unfinished);
    expect(replayed).not.toContain('\uFFFD');
    expect(handed.initializeId).toBe(0);
  });
});
