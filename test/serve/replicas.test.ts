import { type ChildProcess, spawn } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, connect as tcpConnect } from 'node:net';
import * as path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { project, projectToken, type Running, startToolhost } from '../cli/cli.js';

/**
 * Replicas behind a real load balancer: three `toolhost serve --http` processes sharing one
 * project (config, plugins, token file, serve.requestStateKey) behind Debian's HAProxy with round
 * robin, 2025-11-25 sessions kept to their replica by a stick table learned from the
 * Mcp-Session-Id response header. Ten clients make 1,000 calls and some approvals at once:
 * nothing is lost, 2026 approvals continue on whichever replica gets the retry, and every call is
 * in some replica's audit trail.
 */

const KEY = 'replicas-share-this-key-'.repeat(2);
const CLIENTS = 10;
const CALLS_PER_CLIENT = 100;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Resolves once something accepts connections on `port` (HAProxy prints no ready line). */
async function accepting(port: number, process: ChildProcess): Promise<void> {
  for (let attempt = 0; attempt < 500; attempt++) {
    if (process.exitCode !== null) throw new Error(`haproxy exited with ${process.exitCode}`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = tcpConnect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`nothing accepts on ${port}`);
}

/** The HAProxy configuration the README shows, for replicas on `ports`. */
function haproxyConfig(front: number, ports: readonly number[]): string {
  return [
    'global',
    '  maxconn 1024',
    'defaults',
    '  mode http',
    '  timeout connect 5s',
    '  timeout client 60s',
    '  timeout server 60s',
    'frontend mcp',
    `  bind 127.0.0.1:${front}`,
    '  default_backend toolhost',
    'backend toolhost',
    '  balance roundrobin',
    '  stick-table type string len 64 size 100k expire 30m',
    '  stick match req.hdr(mcp-session-id)',
    '  stick store-response res.hdr(mcp-session-id)',
    ...ports.map((port, i) => `  server r${i + 1} 127.0.0.1:${port}`),
    '',
  ].join('\n');
}

describe('three replicas behind HAProxy', () => {
  it("answers 1,000 calls of 10 clients and their approvals, each call in some replica's audit trail", {
    timeout: 180_000,
  }, async () => {
    const { root, dispose } = await project(['healthy'], {
      builtins: { exec: { enabled: false } },
      tools: { approve: ['ls'] },
      approvals: { mcpClients: ['replica-client-*'] },
      serve: { requestStateKey: KEY },
    });
    const replicas: Running[] = [];
    let balancer: ChildProcess | undefined;
    try {
      // Each replica takes a port of the system's choosing and says which: a port picked here and
      // passed on could be taken by another test's server before the replica binds it.
      for (let i = 0; i < 3; i++) {
        replicas.push(startToolhost(['serve', '--http', '0', '--no-watch', '--root', root]));
      }
      const ports: number[] = [];
      for (const replica of replicas) {
        const ready = await replica.stderr.waitFor(
          /MCP streamable HTTP at http:\/\/127\.0\.0\.1:(\d+)\/mcp/,
          {
            timeoutMs: 60_000,
          },
        );
        ports.push(Number(ready[1]));
      }
      // HAProxy's port must be in its configuration, so it is picked here: tried again when it was
      // taken meanwhile (HAProxy then exits).
      const cfg = path.join(root, 'haproxy.cfg');
      let front = 0;
      for (let attempt = 1; ; attempt++) {
        front = await freePort();
        await writeFile(cfg, haproxyConfig(front, ports));
        balancer = spawn('haproxy', ['-f', cfg, '-db'], { stdio: ['ignore', 'ignore', 'pipe'] });
        try {
          await accepting(front, balancer);
          break;
        } catch (error) {
          balancer.kill('SIGKILL');
          if (attempt === 3) throw error;
        }
      }
      const url = new URL(`http://127.0.0.1:${front}/mcp`);
      const token = projectToken(root);

      const asked: string[] = [];
      const client = async (n: number) => {
        const modern = n % 2 === 0;
        const c = new Client(
          { name: `replica-client-${n}`, version: '1.0.0' },
          {
            ...(modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
            capabilities: { elicitation: { form: {} } },
          },
        );
        c.setRequestHandler('elicitation/create', async () => {
          asked.push(`client ${n}`);
          return { action: 'accept', content: { decision: 'allow-once' } };
        });
        await c.connect(
          new StreamableHTTPClientTransport(url, {
            requestInit: { headers: { authorization: `Bearer ${token}` } },
          }),
        );
        const answers: string[] = [];
        for (let i = 0; i < CALLS_PER_CLIENT; i++) {
          const text = `c${n}-${i}`;
          const result = await c.callTool({ name: 'healthy_echo', arguments: { text } });
          answers.push((result.content as { text: string }[])[0]?.text ?? JSON.stringify(result));
          // Some approvals: a 2026 one continues on whichever replica gets the retry; a 2025 one
          // rides its session, which the stick table keeps on its replica.
          if (i % 50 === 25) {
            const listed = await c.callTool({ name: 'ls', arguments: { path: '.' } });
            answers.push(listed.isError === true ? `ls failed: ${JSON.stringify(listed.content)}` : 'ls ok');
          }
        }
        await c.close();
        return answers;
      };
      const results = await Promise.all(Array.from({ length: CLIENTS }, (_, n) => client(n)));

      for (const [n, answers] of results.entries()) {
        const expected: string[] = [];
        for (let i = 0; i < CALLS_PER_CLIENT; i++) {
          expected.push(`echo: c${n}-${i}`);
          if (i % 50 === 25) expected.push('ls ok');
        }
        expect(answers, `client ${n}`).toEqual(expected);
      }
      expect(asked).toHaveLength(CLIENTS * 2);

      for (const replica of replicas) expect(await replica.stop('SIGTERM')).toBe(0);
      replicas.length = 0;
      const dir = path.join(root, '.toolhost', 'audit');
      const files = (await readdir(dir)).filter((f) => f.endsWith('.jsonl'));
      expect(files).toHaveLength(3);
      const calls = new Map<string, number>();
      const perReplica: number[] = [];
      for (const file of files) {
        const records = (await readFile(path.join(dir, file), 'utf8'))
          .trim()
          .split('\n')
          .map(
            (line) =>
              JSON.parse(line) as { type: string; tool: string; status: string; input: { text?: string } },
          );
        const echoes = records.filter(
          (r) => r.type === 'call' && r.tool === 'healthy_echo' && r.status === 'ok',
        );
        perReplica.push(echoes.length);
        for (const r of echoes) calls.set(r.input.text ?? '', (calls.get(r.input.text ?? '') ?? 0) + 1);
      }
      expect(calls.size).toBe(CLIENTS * CALLS_PER_CLIENT);
      expect([...calls.values()].every((count) => count === 1)).toBe(true);
      // Round robin spread the calls: every replica served some.
      expect(perReplica.every((count) => count > 0)).toBe(true);
    } finally {
      balancer?.kill('SIGTERM');
      for (const replica of replicas) await replica.stop('SIGTERM');
      await dispose();
    }
  });
});
