import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createHost, type McpHttpServer, serveHttp, type ToolHost } from '@toolhost/host';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * A quick tool's progress reaches an SDK client before its result. The SDK clients drop a
 * progress notification read in the same chunk as its call's result (typescript-sdk #2580), so
 * the server leaves a gap after a call's last progress notification before its result.
 */

const here = path.dirname(fileURLToPath(import.meta.url));
const hostModule = path.resolve(here, '../../packages/host/dist/index.js');
const fixture = path.resolve(here, '../fixtures/plugins/quick-progress');
const CALLS = 40;

/** Calls quick_steps CALLS times; how many progress notifications the client's callbacks got. */
async function progressSeen(client: Client): Promise<number> {
  let seen = 0;
  for (let i = 0; i < CALLS; i++) {
    const result = await client.callTool({ name: 'quick_steps', arguments: {} }, undefined, {
      onprogress: () => {
        seen += 1;
      },
    });
    expect(result.content).toEqual([{ type: 'text', text: 'done' }]);
  }
  return seen;
}

describe("a quick plugin tool's progress reaches the SDK client", () => {
  let root: string;
  let host: ToolHost;
  let served: McpHttpServer;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'toolhost-progress-'));
    await cp(fixture, path.join(root, 'plugins', 'quick-progress'), { recursive: true });
    host = await createHost({ root, builtins: false, configFile: false, cache: false, sandbox: 'inline' });
    served = await serveHttp(host, { auth: { allowUnauthenticated: true } });
  });

  afterAll(async () => {
    await served?.close();
    await host?.close();
    await rm(root, { recursive: true, force: true });
  });

  /** A 2025 client of `toolhost`'s stdio server in a process of its own, over the built host. */
  async function stdioClient(name: string): Promise<Client> {
    const script = `
      const { createHost, serveStdio } = await import(${JSON.stringify(hostModule)});
      const host = await createHost({ root: ${JSON.stringify(root)}, builtins: false, sandbox: 'inline', cache: false, configFile: false });
      const served = await serveStdio(host);
      await served.closed;
      await host.close();
    `;
    const client = new Client({ name, version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ['--no-node-snapshot', '--input-type=module', '-e', script],
      }),
    );
    return client;
  }

  it('over stdio, to a client that reads late: a ping after the progress, the result after its answer', async () => {
    // The client's thread is held at the first notification, long after the tool returned: the
    // rest of its progress and its result are then all in the pipe at the next read, where a gap
    // of time no longer separates them. The ping does: the result waits for the client's answer.
    const client = await stdioClient('progress-late-reader');
    try {
      for (let i = 0; i < 3; i++) {
        const seen: number[] = [];
        const result = await client.callTool({ name: 'quick_steps', arguments: {} }, undefined, {
          onprogress: ({ progress }) => {
            seen.push(progress);
            if (progress === 1) {
              const until = performance.now() + 300;
              while (performance.now() < until) {
                // busy: the server writes on meanwhile
              }
            }
          },
        });
        expect(result.content).toEqual([{ type: 'text', text: 'done' }]);
        expect(seen).toEqual([1, 2, 3]);
      }
    } finally {
      await client.close();
    }
  });

  it('over stdio, every notification of every call', async () => {
    const client = await stdioClient('progress-stdio');
    expect(await progressSeen(client)).toBe(CALLS * 3);
    await client.close();
  });

  it('over streamable HTTP, every notification of every call', async () => {
    const client = new Client({ name: 'progress-http', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
    expect(await progressSeen(client)).toBe(CALLS * 3);
    await client.close();
  });
});
