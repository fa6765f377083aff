import { PassThrough } from 'node:stream';
import type { ToolHost } from '../../src/host/host.js';
import { type McpStdioOptions, serveStdioRecorded } from '../../src/serve/stdio.js';

/** A message the server wrote, as parsed. */
export interface Written {
  readonly id?: unknown;
  readonly method?: string;
  readonly result?: unknown;
  readonly error?: unknown;
}

/**
 * `serveStdioRecorded` over in-memory pipes, spoken to in raw JSON-RPC lines: `send` writes one
 * message, `answerTo(id)` waits until the response to `id` was written (at most 100 reads), and
 * `written` holds everything the server wrote, in order.
 */
export async function rawStdio(host: ToolHost, options: Omit<McpStdioOptions, 'stdin' | 'stdout'> = {}) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const written: Written[] = [];
  let waiting: (() => void) | undefined;
  stdout.on('data', (chunk: Buffer) => {
    for (const line of `${chunk}`.split('\n').filter(Boolean)) written.push(JSON.parse(line) as Written);
    waiting?.();
  });
  const served = await serveStdioRecorded(host, { ...options, stdin, stdout }, undefined);
  const answered = (id: unknown) => written.some((m) => m.id === id && m.method === undefined);
  return {
    served,
    written,
    send: (message: unknown) => stdin.write(`${JSON.stringify(message)}\n`),
    answerTo: async (id: unknown) => {
      for (let read = 0; read < 100 && !answered(id); read++) {
        await new Promise<void>((resolve) => (waiting = resolve));
      }
      if (!answered(id)) throw new Error(`no response to ${JSON.stringify(id)} in 100 reads`);
    },
  };
}
