import { Agent, request } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/server';
import { createHost, serveHttp } from '@toolhost/host';
import { defineTool } from '@toolhost/plugin-sdk';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { countChangeListeners, INITIALIZE, MCP_HEADERS, sessionCloses } from './mcp-http-helpers.js';

// This file runs in its own worker process, so exposing the collector here touches no other test.
// (The same way Jest's leak detector reaches it: the flag, then `gc` from a fresh context.)
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

async function collect(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    // WeakRef targets stay alive until the current job ends: let it end before collecting.
    await new Promise((resolve) => setImmediate(resolve));
    gc();
  }
  return process.memoryUsage().heapUsed;
}

/** One POST over a keep-alive agent (about twice as fast as fetch, so the flood stays short). */
function rawPost(
  agent: Agent,
  port: number,
  message: unknown,
  sessionId?: string,
): Promise<{ status: number; sessionId: string | undefined }> {
  const body = JSON.stringify(message);
  const headers = {
    ...MCP_HEADERS,
    'content-length': String(Buffer.byteLength(body)),
    ...(sessionId === undefined ? {} : { 'mcp-session-id': sessionId }),
  };
  return new Promise((resolve, reject) => {
    const req = request({ agent, host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers }, (res) => {
      res.resume();
      res.once('end', () => {
        const id = res.headers['mcp-session-id'];
        resolve({ status: res.statusCode ?? 0, sessionId: typeof id === 'string' ? id : undefined });
      });
    });
    req.once('error', reject);
    req.end(body);
  });
}

/** Opens `n` sessions, `width` at a time, and walks away from each; every fourth lists tools first. */
async function abandon(port: number, n: number, width = 16): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: width });
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      const { status, sessionId } = await rawPost(agent, port, INITIALIZE);
      expect(status).toBe(200);
      // A listing may meet an already expired session (the idle time is short): either is abandonment.
      if (i % 4 === 0) await rawPost(agent, port, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, sessionId);
    }
  };
  try {
    await Promise.all(Array.from({ length: width }, worker));
  } finally {
    agent.destroy();
  }
}

/** Every MCP Server created while `run` runs, weakly held. */
async function trackServers<T>(run: (servers: WeakRef<Server>[]) => Promise<T>): Promise<T> {
  const servers: WeakRef<Server>[] = [];
  const connect = Server.prototype.connect;
  // A plain patch, not a spy: a spy would keep every instance in its call records.
  Server.prototype.connect = function (this: Server, transport) {
    servers.push(new WeakRef(this));
    return connect.call(this, transport);
  };
  try {
    return await run(servers);
  } finally {
    Server.prototype.connect = connect;
  }
}

describe('MCP HTTP sessions under a flood of abandoned clients', () => {
  it('returns to the baseline of sessions, host listeners and memory after expiry and after close()', async () => {
    const host = await createHost({
      pluginsDir: false,
      builtins: false,
      configFile: false,
      customTools: [
        defineTool({
          name: 'echo',
          description: 'Echoes',
          input: z.object({ text: z.string() }),
          execute: (i) => i.text,
        }),
      ],
    });
    const listeners = countChangeListeners(host);
    await trackServers(async (servers) => {
      // Abandoned sessions expire: a short idle time stands for the default 30 minutes.
      const closes = sessionCloses();
      // A cap above the flood: on a loaded machine more than the default 256 could be alive at once,
      // and an eviction would end a session some other way than by expiring.
      const expiring = await serveHttp(host, {
        auth: { allowUnauthenticated: true },
        sessionIdleMs: 200,
        maxSessions: 10_000,
        onSessionClose: closes.onSessionClose,
      });
      await abandon(expiring.port, 50); // warm-up, so the baseline includes what the first requests load
      await closes.count('expired', 50);
      const baseline = await collect();

      const ABANDONED = 1200;
      await abandon(expiring.port, ABANDONED);
      // A few real SDK clients too: each opens its GET stream, and leaves without a DELETE.
      for (let i = 0; i < 3; i++) {
        const client = new Client({ name: `sdk-${i}`, version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(new URL(expiring.url)));
        expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo']);
        await client.close();
      }
      await closes.count('expired', 50 + ABANDONED + 3);
      expect(closes.seen.filter((close) => close.reason !== 'expired')).toEqual([]);
      expect(expiring.sessions).toBe(0);
      expect(listeners.count).toBe(0);
      await expiring.close();

      // Sessions that do not expire (the default idle time) are all ended by close().
      const KEPT = 800;
      const lasting = await serveHttp(host, { auth: { allowUnauthenticated: true }, maxSessions: KEPT });
      await abandon(lasting.port, KEPT);
      expect(lasting.sessions).toBe(KEPT);
      expect(listeners.count).toBe(KEPT);
      await lasting.close();
      expect(lasting.sessions).toBe(0);
      expect(listeners.count).toBe(0);

      expect(servers.length).toBe(50 + ABANDONED + 3 + KEPT);
      const after = await collect();
      // Nothing holds any of the MCP servers (nor so their sessions and transports) any more.
      expect(servers.filter((server) => server.deref() !== undefined)).toHaveLength(0);
      // A session holds ≈ 12 KB of heap (bench/http-sessions.mjs): 2,000 kept would be ≈ 24 MB.
      // The rest is what the first requests loaded or compiled (≈ 1–3 MB, flat as sessions come and go).
      expect(after - baseline).toBeLessThan(8 * 1024 * 1024);
    });
    await host.close();
    // ≈ 2,000 initializes: a few seconds on an idle machine; the bound only catches a hang.
  }, 60_000);
});
