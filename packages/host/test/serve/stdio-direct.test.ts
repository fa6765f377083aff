import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolResultSchema,
  ElicitRequestSchema,
  type JSONRPCMessage,
  LoggingMessageNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { defineTool } from '@toolhost/plugin-sdk';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { ToolHost } from '../../src/host/host.js';
import { createHost } from '../../src/index.js';
import { directRequestOf } from '../../src/serve/direct-calls.js';
import { serveStdioRecorded } from '../../src/serve/stdio.js';
import { rawStdio } from './raw-stdio.js';

/** A client transport over in-memory pipes to `serveStdio`, keeping every message the server sent. */
class PipeTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly received: JSONRPCMessage[] = [];
  readonly sent: JSONRPCMessage[] = [];
  #buffer = '';
  constructor(
    readonly stdin: PassThrough,
    readonly stdout: PassThrough,
  ) {}
  async start() {
    this.stdout.on('data', (chunk: Buffer) => {
      this.#buffer += chunk.toString();
      let end = this.#buffer.indexOf('\n');
      while (end >= 0) {
        const message = JSON.parse(this.#buffer.slice(0, end)) as JSONRPCMessage;
        this.#buffer = this.#buffer.slice(end + 1);
        this.received.push(message);
        this.onmessage?.(message);
        end = this.#buffer.indexOf('\n');
      }
    });
  }
  /** Each message in a turn of its own, as a client's writes to a real pipe are read. */
  async send(message: JSONRPCMessage) {
    this.sent.push(message);
    await new Promise((resolve) => setImmediate(resolve));
    this.stdin.write(`${JSON.stringify(message)}\n`);
  }
  async close() {
    this.stdin.end();
    this.onclose?.();
  }
}

let host: ToolHost | undefined;
let closeAll: (() => Promise<void>) | undefined;
afterEach(async () => {
  await closeAll?.();
  closeAll = undefined;
  await host?.close();
  host = undefined;
});

const aborted: unknown[] = [];
let release: (() => void) | undefined;
/** The `gate` calls started, in order, each ended by its own function (or its abort). */
const gates: { n: number; open: () => void }[] = [];
let gateStarted: (() => void) | undefined;
/** Resolves once `count` gate calls have started. */
function gatesStarted(count: number): Promise<void> {
  if (gates.length >= count) return Promise.resolve();
  return new Promise((resolve) => {
    gateStarted = () => {
      if (gates.length >= count) resolve();
    };
  });
}
const tools = [
  defineTool({
    name: 'gate',
    description: 'Runs until its gate is opened, or it is aborted',
    input: z.object({ n: z.number() }),
    execute: ({ n }, ctx) =>
      new Promise<string>((resolve) => {
        let opened = false;
        gates.push({
          n,
          open: () => {
            opened = true;
            resolve(`gate ${n}`);
          },
        });
        ctx.signal.addEventListener('abort', () => {
          // The signal of a call that ended is aborted too: only an abort while it runs counts.
          if (opened) return;
          aborted.push(n);
          resolve('aborted');
        });
        gateStarted?.();
      }),
  }),
  defineTool({
    name: 'echo',
    description: 'Echoes',
    input: z.object({ text: z.string() }),
    execute: (i) => i.text,
  }),
  defineTool({
    name: 'shaped',
    description: 'Structured output',
    input: z.object({}),
    output: z.object({ n: z.number() }),
    execute: () => ({ structuredContent: { n: 7 } }),
  }),
  defineTool({
    name: 'picture',
    description: 'An image block',
    input: z.object({}),
    execute: () => [{ type: 'image', data: 'aGk=', mimeType: 'image/png' }],
  }),
  defineTool({
    name: 'broken',
    description: 'An image block without its media type, which no CallToolResult may hold',
    input: z.object({}),
    execute: () => [{ type: 'image', data: 'aGk=' } as never],
  }),
  defineTool({
    name: 'extra',
    description: 'A text block with a key no 2025 text block has',
    input: z.object({}),
    execute: () => [{ type: 'text', text: 'x', extra: 1 } as never],
  }),
  defineTool({
    name: 'fails',
    description: 'Throws',
    input: z.object({}),
    execute: () => {
      throw new Error('it broke');
    },
  }),
  defineTool({
    name: 'chatty',
    description: 'Logs at two levels',
    input: z.object({}),
    execute: (_input, ctx) => {
      ctx.log.info('an info line');
      ctx.log.warn('a warning line');
      return 'logged';
    },
  }),
  defineTool({
    name: 'waits',
    description: 'Runs until cancelled',
    input: z.object({}),
    execute: (_input, ctx) =>
      new Promise<string>((resolve) => {
        release?.();
        ctx.signal.addEventListener('abort', () => {
          aborted.push(ctx.signal.reason);
          resolve('cancelled');
        });
      }),
  }),
  defineTool({
    name: 'asks',
    description: 'Asks the client a question',
    input: z.object({}),
    execute: async (_input, ctx) => {
      const { name } = await ctx.ask({
        name: {
          method: 'elicitation/create',
          params: {
            message: 'Your name?',
            requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
          },
        },
      });
      return `hello ${String((name as { content?: { name?: unknown } }).content?.name)}`;
    },
  }),
];

/** A host with the tools above served over in-memory stdio, and an SDK client connected to it. */
async function served(options: { maxRunningCalls?: number } = {}) {
  host = await createHost({
    pluginsDir: false,
    builtins: false,
    configFile: false,
    customTools: tools,
    approvals: { mcpClients: ['direct-test'] },
  });
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const server = await serveStdioRecorded(host, { stdin, stdout, ...options }, undefined);
  const transport = new PipeTransport(stdin, stdout);
  const client = new Client(
    { name: 'direct-test', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } } },
  );
  await client.connect(transport);
  closeAll = async () => {
    await client.close();
    await server.close();
  };
  /** The same call, on the direct path and, with a progress token, on the SDK's. */
  const bothWays = async (name: string) => {
    const answer = async (meta?: { progressToken: string }) => {
      const before = server.directCalls();
      const id = transport.received.length;
      await client
        .request(
          {
            method: 'tools/call',
            params: { name, arguments: {}, ...(meta === undefined ? {} : { _meta: meta }) },
          },
          CallToolResultSchema,
        )
        .catch(() => {});
      const response = transport.received.slice(id).find((m) => 'result' in m || 'error' in m);
      return { direct: server.directCalls() - before, response: { ...response, id: undefined } };
    };
    return { direct: await answer(), sdk: await answer({ progressToken: 'p' }) };
  };
  return { client, transport, server, bothWays };
}

describe('the direct path of tools/call over stdio', () => {
  it('answers as the SDK path does: text, structured output, an image, a tool error', async () => {
    const { client, server, bothWays } = await served();
    expect(await client.callTool({ name: 'echo', arguments: { text: 'hi' } })).toEqual({
      content: [{ type: 'text', text: 'hi' }],
    });
    expect(server.directCalls()).toBe(1);
    for (const name of ['shaped', 'picture', 'fails']) {
      const { direct, sdk } = await bothWays(name);
      expect(direct.direct, name).toBe(1);
      expect(sdk.direct, name).toBe(0);
      expect(direct.response, name).toEqual(sdk.response);
      expect('result' in direct.response, name).toBe(true);
    }
  });

  it('answers a refused call with the protocol error the SDK path sends', async () => {
    const { bothWays } = await served();
    const { direct, sdk } = await bothWays('no_such_tool');
    expect(direct.direct).toBe(1);
    expect(direct.response).toEqual(sdk.response);
    expect(direct.response).toMatchObject({ error: { code: -32602 } });
    expect(JSON.stringify(direct.response)).toContain('no_such_tool');
  });

  it('refuses a result that is no CallToolResult, and strips an unknown key, as the SDK path does', async () => {
    const { bothWays } = await served();
    const broken = await bothWays('broken');
    expect(broken.direct.direct).toBe(1);
    expect(broken.direct.response).toEqual(broken.sdk.response);
    expect(broken.direct.response).toMatchObject({ error: { code: -32602 } });
    expect((broken.direct.response as { error: { message: string } }).error.message).toMatch(
      /^Invalid tools\/call result: /,
    );
    const extra = await bothWays('extra');
    expect(extra.direct.direct).toBe(1);
    expect(extra.direct.response).toEqual(extra.sdk.response);
    expect(extra.direct.response).toMatchObject({ result: { content: [{ type: 'text', text: 'x' }] } });
  });

  it('keeps the order of messages read together: a level set just before a call applies to it', async () => {
    const { client, transport, server } = await served();
    const levels: string[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      levels.push(n.params.level);
    });
    const answered = new Promise<void>((resolve) => {
      transport.stdout.on('data', (chunk: Buffer) => {
        if (`${chunk}`.includes('"id":"call"')) resolve();
      });
    });
    // One write, as a client that pipelines sends them.
    transport.stdin.write(
      [
        { jsonrpc: '2.0', id: 'level', method: 'logging/setLevel', params: { level: 'warning' } },
        { jsonrpc: '2.0', id: 'call', method: 'tools/call', params: { name: 'chatty', arguments: {} } },
      ]
        .map((m) => `${JSON.stringify(m)}\n`)
        .join(''),
    );
    await answered;
    expect(levels).toEqual(['warning']);
    // The next call, read alone, takes the direct path again.
    await client.callTool({ name: 'chatty', arguments: {} });
    expect(server.directCalls()).toBe(1);
    expect(levels).toEqual(['warning', 'warning']);
  });

  it('sends log lines at or above the level the client set', async () => {
    const { client, server } = await served();
    const lines: string[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      lines.push(`${n.params.level} ${JSON.stringify(n.params.data)}`);
    });
    await client.setLoggingLevel('warning');
    await client.callTool({ name: 'chatty', arguments: {} });
    expect(server.directCalls()).toBe(1);
    expect(lines).toEqual(['warning "a warning line"']);
  });

  it('aborts a cancelled call, sends no response for it, and serves the next', async () => {
    const { client, transport, server } = await served();
    aborted.length = 0;
    const started = new Promise<void>((resolve) => (release = resolve));
    const controller = new AbortController();
    const call = client.callTool({ name: 'waits', arguments: {} }, undefined, { signal: controller.signal });
    await started;
    expect(server.directCalls()).toBe(1);
    const request = transport.sent.find((m) => 'method' in m && m.method === 'tools/call');
    const id = request !== undefined && 'id' in request ? request.id : undefined;
    expect(id).toBeDefined();
    // A reason that is no string: the SDK's schema refuses that cancellation, and so does this path.
    await transport.send({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: id, reason: 5 },
    } as JSONRPCMessage);
    await client.ping();
    expect(aborted).toEqual([]);
    controller.abort('the user gave up');
    await expect(call).rejects.toThrow();
    expect(await client.callTool({ name: 'echo', arguments: { text: 'next' } })).toEqual({
      content: [{ type: 'text', text: 'next' }],
    });
    expect(aborted).toEqual(['the user gave up']);
    // Nothing answered the cancelled call.
    expect(transport.received.filter((m) => 'id' in m && m.id === id && !('method' in m))).toEqual([]);
  });

  it('aborts the direct calls still running when the connection closes, as the SDK does its own', async () => {
    const { client, server } = await served();
    aborted.length = 0;
    const started = new Promise<void>((resolve) => (release = resolve));
    const call = client.callTool({ name: 'waits', arguments: {} }).catch(() => 'closed');
    await started;
    expect(server.directCalls()).toBe(1);
    await server.close();
    for (let turn = 0; turn < 100 && aborted.length === 0; turn++) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(aborted.map(String)).toEqual([expect.stringMatching(/Connection closed/)]);
    await client.close();
    expect(await call).toBe('closed');
  });

  it("serves a tool's ctx.ask: the request reaches the client and its answer the tool", async () => {
    const { client, server } = await served();
    client.setRequestHandler(ElicitRequestSchema, async () => ({
      action: 'accept',
      content: { name: 'Ada' },
    }));
    expect(await client.callTool({ name: 'asks', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'hello Ada' }],
    });
    expect(server.directCalls()).toBe(1);
  });
});

describe('how many direct calls run at once', () => {
  /**
   * `tools/call` requests of the gate tool, written in one write, as a pipelining client sends
   * them; in a turn of their own, as PipeTransport sends (a message the SDK took in the same turn
   * would send them the SDK's way).
   */
  const gateCalls = async (transport: PipeTransport, ns: number[]) => {
    await new Promise((resolve) => setImmediate(resolve));
    transport.stdin.write(
      ns
        .map((n) => ({
          jsonrpc: '2.0',
          id: `g${n}`,
          method: 'tools/call',
          params: { name: 'gate', arguments: { n } },
        }))
        .map((m) => `${JSON.stringify(m)}\n`)
        .join(''),
    );
  };
  /** Resolves with the response to `id` once it is read. */
  const responseTo = (transport: PipeTransport, id: string) =>
    new Promise<JSONRPCMessage>((resolve) => {
      const seen = () => transport.received.find((m) => 'id' in m && m.id === id && !('method' in m));
      const found = seen();
      if (found !== undefined) return resolve(found);
      transport.stdout.on('data', () => {
        const now = seen();
        if (now !== undefined) resolve(now);
      });
    });
  const started = () => gates.map((gate) => gate.n);
  const open = (n: number) => gates.find((gate) => gate.n === n)?.open();

  // Calls of earlier tests may have left their abort reasons; gates of a failed test are opened.
  beforeEach(() => {
    aborted.length = 0;
  });
  afterEach(() => {
    for (const gate of gates) gate.open();
    gates.length = 0;
    gateStarted = undefined;
    aborted.length = 0;
  });

  it('runs at most maxRunningCalls; the others start in the order read, as running ones end', async () => {
    const { client, transport, server } = await served({ maxRunningCalls: 2 });
    await gateCalls(transport, [1, 2, 3, 4]);
    await gatesStarted(2);
    // Other messages are handled while calls wait.
    await client.ping();
    expect(started()).toEqual([1, 2]);
    open(2);
    await gatesStarted(3);
    await client.ping();
    expect(started()).toEqual([1, 2, 3]);
    open(1);
    await gatesStarted(4);
    expect(started()).toEqual([1, 2, 3, 4]);
    open(3);
    open(4);
    const answers = await Promise.all([1, 2, 3, 4].map((n) => responseTo(transport, `g${n}`)));
    expect(answers.map((m) => ('result' in m ? m.result : m))).toEqual(
      [1, 2, 3, 4].map((n) => ({ content: [{ type: 'text', text: `gate ${n}` }] })),
    );
    expect(server.directCalls()).toBe(4);
  });

  it('a waiting call that is cancelled never starts, and gets no response', async () => {
    const { client, transport } = await served({ maxRunningCalls: 1 });
    await gateCalls(transport, [1, 2, 3]);
    await gatesStarted(1);
    await transport.send({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 'g2', reason: 'not needed' },
    } as JSONRPCMessage);
    await client.ping();
    open(1);
    await gatesStarted(2);
    expect(started()).toEqual([1, 3]);
    open(3);
    await responseTo(transport, 'g3');
    expect(transport.received.filter((m) => 'id' in m && m.id === 'g2')).toEqual([]);
    expect(aborted).toEqual([]);
  });

  it("reads a client's answer to a running call's question while other calls wait", async () => {
    const { client } = await served({ maxRunningCalls: 1 });
    client.setRequestHandler(ElicitRequestSchema, async () => ({
      action: 'accept',
      content: { name: 'Ada' },
    }));
    // The question's call runs; the echo waits for it, and the answer to the question must not.
    const order: string[] = [];
    const [asked, echoed] = await Promise.all([
      client.callTool({ name: 'asks', arguments: {} }).finally(() => order.push('asks')),
      client.callTool({ name: 'echo', arguments: { text: 'after' } }).finally(() => order.push('echo')),
    ]);
    expect(asked).toEqual({ content: [{ type: 'text', text: 'hello Ada' }] });
    expect(echoed).toEqual({ content: [{ type: 'text', text: 'after' }] });
    expect(order).toEqual(['asks', 'echo']);
  });

  it('the calls still waiting when the connection closes never start', async () => {
    const { transport, server } = await served({ maxRunningCalls: 1 });
    await gateCalls(transport, [1, 2]);
    await gatesStarted(1);
    await server.close();
    for (let turn = 0; turn < 100 && aborted.length === 0; turn++) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(aborted).toEqual([1]);
    // The running call has ended; a waiting one would start in the turns after it.
    for (let turn = 0; turn < 10; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(started()).toEqual([1]);
  });

  it('refuses a maxRunningCalls that is not a whole number of at least 1', async () => {
    host = await createHost({ pluginsDir: false, builtins: false, configFile: false, customTools: tools });
    for (const maxRunningCalls of [0, -1, 1.5, Number.NaN]) {
      await expect(
        serveStdioRecorded(
          host,
          { stdin: new PassThrough(), stdout: new PassThrough(), maxRunningCalls },
          undefined,
        ),
      ).rejects.toThrow(
        /^serveStdio: maxRunningCalls must be a whole number of at least 1, or Infinity, got /,
      );
    }
    const unbounded = await serveStdioRecorded(
      host,
      { stdin: new PassThrough(), stdout: new PassThrough(), maxRunningCalls: Number.POSITIVE_INFINITY },
      undefined,
    );
    await unbounded.close();
  });
});

describe('which calls take the direct path', () => {
  const call = (params: unknown, extra: object = {}) =>
    ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params, ...extra }) as JSONRPCMessage;

  it('a name, object arguments or none, and a W3C trace context in _meta', () => {
    expect(directRequestOf(call({ name: 'a' }))).toEqual({ id: 1, params: { name: 'a' } });
    expect(directRequestOf(call({ name: 'a', arguments: { x: 1 } }))?.params.arguments).toEqual({ x: 1 });
    const meta = {
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      tracestate: 'a=b',
    };
    expect(directRequestOf(call({ name: 'a', _meta: meta }))?.params._meta).toEqual(meta);
  });

  it('not a progress token, a task, arguments that are no object, a name that is no string', () => {
    expect(directRequestOf(call({ name: 'a', _meta: { progressToken: 1 } }))).toBeUndefined();
    expect(directRequestOf(call({ name: 'a', task: { ttl: 1000 } }))).toBeUndefined();
    expect(directRequestOf(call({ name: 'a', arguments: [1] }))).toBeUndefined();
    expect(directRequestOf(call({ name: 'a', arguments: null }))).toBeUndefined();
    expect(directRequestOf(call({ name: 7 }))).toBeUndefined();
    expect(directRequestOf(call(undefined))).toBeUndefined();
  });

  it('not a message with a key JSON-RPC does not have, nor arguments with an own __proto__', () => {
    expect(directRequestOf(call({ name: 'a' }, { extra: 1 }))).toBeUndefined();
    expect(
      directRequestOf(call({ name: 'a', arguments: JSON.parse('{"__proto__":{"x":1},"y":2}') })),
    ).toBeUndefined();
  });

  it('not another method, nor a notification', () => {
    expect(directRequestOf(call({ name: 'a' }, { method: 'tools/list' }))).toBeUndefined();
    expect(
      directRequestOf({ jsonrpc: '2.0', method: 'tools/call', params: { name: 'a' } } as JSONRPCMessage),
    ).toBeUndefined();
  });

  it('before initialize the SDK answers', async () => {
    host = await createHost({ pluginsDir: false, builtins: false, configFile: false, customTools: tools });
    const { served, send, answerTo } = await rawStdio(host);
    closeAll = () => served.close();
    // The first message makes the connection's server; the second finds it there, not initialized.
    for (const id of [1, 2]) {
      send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' } } });
      await answerTo(id);
    }
    expect(served.directCalls()).toBe(0);
  });
});

describe('a process a supervisor restarted', () => {
  it('takes the direct path with no initialize: its client initialized the process before', async () => {
    host = await createHost({ pluginsDir: false, builtins: false, configFile: false, customTools: tools });
    const { served, send, answerTo, written } = await rawStdio(host, { announce: 'restarted' });
    closeAll = () => served.close();
    for (const id of [1, 2]) {
      send({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: `t${id}` } },
      });
      await answerTo(id);
      // The next message in a turn of its own, as a client's next write is read.
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(written.filter((m) => m.id !== undefined).map((m) => m.result)).toEqual([
      { content: [{ type: 'text', text: 't1' }] },
      { content: [{ type: 'text', text: 't2' }] },
    ]);
    // The first message makes the connection's server; the second is taken directly.
    expect(served.directCalls()).toBe(1);
  });
});

describe('the lines serve reads from the client', () => {
  it('split anywhere, with \\r\\n endings, a line that is no JSON skipped', async () => {
    const { LineReader } = await import('../../src/serve/stdio-lines.js');
    const reader = new LineReader(1024);
    expect(reader.push(Buffer.from('{"a":1}\r\n{"b"'))).toEqual(['{"a":1}']);
    expect(reader.push(Buffer.from(':2}'))).toEqual([]);
    expect(reader.push(Buffer.from('\nnot json\n\n'))).toEqual(['{"b":2}', 'not json', '']);
  });

  it('a character whose bytes come in two chunks stays one, and an unfinished line is held', async () => {
    const { LineReader } = await import('../../src/serve/stdio-lines.js');
    const reader = new LineReader();
    const bytes = Buffer.from('"é"\n"ü', 'utf8');
    expect(reader.push(bytes.subarray(0, 2))).toEqual([]);
    expect(reader.push(bytes.subarray(2))).toEqual(['"é"']);
    expect(reader.held?.toString('utf8')).toBe('"ü');
  });

  it('gives the same lines however the bytes are split into chunks, and holds the unfinished end', async () => {
    const { LineReader } = await import('../../src/serve/stdio-lines.js');
    const line = fc.string({ unit: fc.constantFrom('a', '{', '"', 'é', '😀', '\r', ' '), maxLength: 40 });
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 8 }),
        fc.constantFrom('\n', '\r\n'),
        line,
        fc.array(fc.nat(), { maxLength: 12 }),
        (lines, ending, rest, cuts) => {
          const bytes = Buffer.from(lines.map((l) => l + ending).join('') + rest, 'utf8');
          const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
          const reader = new LineReader();
          const read: string[] = [];
          let from = 0;
          for (const to of [...at, bytes.length]) {
            read.push(...reader.push(bytes.subarray(from, to)));
            from = to;
          }
          // A `\r` ending a line is dropped, as the SDK does; one inside a line stays.
          expect(read).toEqual(lines.map((l) => (ending === '\n' && l.endsWith('\r') ? l.slice(0, -1) : l)));
          expect(reader.held?.toString('utf8')).toBe(rest === '' ? undefined : rest);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a message longer than the limit is an error, and what was held is dropped', async () => {
    const { LineReader } = await import('../../src/serve/stdio-lines.js');
    const reader = new LineReader(8);
    expect(reader.push(Buffer.from('12345'))).toEqual([]);
    expect(() => reader.push(Buffer.from('6789'))).toThrow(/exceeded maximum size of 8 bytes/);
    expect(reader.push(Buffer.from('ab\n'))).toEqual(['ab']);
  });

  it('an id that is no integer, or a jsonrpc other than 2.0, is not taken directly', () => {
    const base = { jsonrpc: '2.0', method: 'tools/call', params: { name: 'a' } };
    expect(directRequestOf({ ...base, id: 1.5 })).toBeUndefined();
    expect(directRequestOf({ ...base, id: null })).toBeUndefined();
    expect(directRequestOf({ ...base, id: 1, jsonrpc: '1.0' })).toBeUndefined();
    expect(directRequestOf({ ...base, id: 'x' })).toEqual({ id: 'x', params: { name: 'a' } });
  });
});
