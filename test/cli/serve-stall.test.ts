/**
 * `toolhost serve --http` and `toolhost dev` close the connection of a client that stops reading its answers, and
 * says so on stderr, naming the client's address and the setting (serve.writeStallMs).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MCP_HEADERS, openSession } from '../mcp/mcp-http-helpers.js';
import { project, startToolhost } from './cli.js';

const BIG = `import { definePlugin, defineTool } from '@toolhost/plugin-sdk';
import * as z from 'zod';
export default definePlugin({
  id: 'big',
  tools: [defineTool({ name: 'big_text', description: 'A large result', input: z.object({}), execute: () => 'x'.repeat(12_000_000) })],
});
`;

/** The two commands that serve HTTP, and where each prints its MCP address. */
const COMMANDS = [
  { name: 'serve --http', args: ['serve', '--http', '0', '--no-watch'], stream: 'stderr' },
  { name: 'dev', args: ['dev', '--port', '0'], stream: 'stdout' },
] as const;
const ADDRESS = /MCP (?:streamable HTTP at )?(http:\/\/127\.0\.0\.1:\d+\/mcp)/;

describe('toolhost with a client that stops reading', () => {
  it.each(COMMANDS)(
    '$name closes its connection after serve.writeStallMs, says so, and serves the next client',
    async ({ args, stream }) => {
      const source = await mkdtemp(path.join(tmpdir(), 'toolhost-big-'));
      await mkdir(path.join(source, 'big'));
      await writeFile(path.join(source, 'big', 'index.ts'), BIG);
      const { root, dispose } = await project([{ from: path.join(source, 'big') }], {
        builtins: false,
        serve: { writeStallMs: 1000 },
        limits: { maxResultChars: 16_000_000 },
      });
      const server = startToolhost([...args, '--allow-unauthenticated', '--root', root]);
      try {
        const [, url = ''] = await server[stream].waitFor(ADDRESS);
        const session = await openSession(url);
        const body = JSON.stringify({
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/call',
          params: { name: 'big_text', arguments: {} },
        });
        const { port } = new URL(url);
        const head = Object.entries({
          ...MCP_HEADERS,
          'mcp-session-id': session,
          host: `127.0.0.1:${port}`,
          'content-length': String(Buffer.byteLength(body)),
        })
          .map(([name, value]) => `${name}: ${value}`)
          .join('\r\n');
        const stalled = connect(Number(port), '127.0.0.1');
        stalled.on('error', () => {});
        await new Promise<void>((resolve) => stalled.once('connect', () => resolve()));
        stalled.write(`POST /mcp HTTP/1.1\r\n${head}\r\n\r\n${body}`);
        stalled.pause();

        const [, remote] = await server.stderr.waitFor(
          /toolhost: closed the connection of (\S+): it read nothing of its answers for 1 s \(serve\.writeStallMs\)/,
        );
        expect(remote).toBe(`127.0.0.1:${stalled.localPort}`);
        stalled.destroy();

        const answer = await fetch(url, {
          method: 'POST',
          headers: { ...MCP_HEADERS, 'mcp-session-id': session },
          body: body.replace('"id":2', '"id":3'),
        });
        expect(answer.status).toBe(200);
        expect((await answer.text()).length).toBeGreaterThan(12_000_000);
      } finally {
        expect(await server.stop('SIGTERM')).toBe(0);
        await dispose();
        await rm(source, { recursive: true, force: true });
      }
    },
  );
});
