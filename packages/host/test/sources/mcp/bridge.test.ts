import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { createRequire } from 'node:module';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ToolResult } from '@toolhost/plugin-sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ToolhostConfig } from '../../../src/config/schema.js';
import { McpBridge, type McpBridgeOptions, type McpServerConfig } from '../../../src/sources/mcp/bridge.js';
import type { ExecutionContext, RegisteredTool } from '../../../src/types.js';

const require = createRequire(import.meta.url);

/** The bin of a server package installed at the workspace root. */
function binOf(pkg: string): string {
  const manifest = require.resolve(`${pkg}/package.json`);
  return path.join(path.dirname(manifest), 'dist', 'index.js');
}

const EVERYTHING_BIN = binOf('@modelcontextprotocol/server-everything');
const FILESYSTEM_BIN = binOf('@modelcontextprotocol/server-filesystem');

/**
 * What these servers need to run in their jail (the default): the workspace's node_modules, where
 * their code is, and the temp folders the tests write fixture servers and files to. What a jail
 * refuses is tested in test/jail/servers.test.ts.
 */
const NODE_MODULES = path.resolve(import.meta.dirname, '../../../../../node_modules');
function granted<T extends object>(config: T): T & { sandbox: { fs: { read: string[]; write: string[] } } } {
  return { ...config, sandbox: { fs: { read: [NODE_MODULES], write: [os.tmpdir()] } } };
}

function everything(...args: string[]) {
  return granted({ command: process.execPath, args: [EVERYTHING_BIN, ...args] });
}

async function tempDir(prefix: string): Promise<string> {
  // Real path: the filesystem server compares resolved paths.
  return fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), `toolhost-bridge-${prefix}-`)));
}

/**
 * A small MCP server written for these tests with the SDK's low-level `Server`, so the tool list
 * can hold what no reference server offers: odd names, a task-only tool, a list that changes.
 */
async function writeFixtureServer(dir: string): Promise<string> {
  const sdk = (sub: string) => JSON.stringify(require.resolve(`@modelcontextprotocol/sdk/${sub}`));
  const file = path.join(dir, 'fixture-server.cjs');
  const longName = `a-very-long-tool-name-${'x'.repeat(60)}`;
  await fs.writeFile(
    file,
    `
const { Server } = require(${sdk('server/index.js')});
const { StdioServerTransport } = require(${sdk('server/stdio.js')});
const { ListToolsRequestSchema, CallToolRequestSchema, McpError } = require(${sdk('types.js')});
const object = { type: 'object' };
const tools = [
  { name: 'alpha', title: 'Alpha', description: 'Says what it got', inputSchema: { type: 'object', properties: { word: { type: 'string' } } } },
  { name: 'add-tool', description: 'Adds the tool beta', inputSchema: object },
  { name: 'crash', description: 'Dies', inputSchema: object },
  { name: 'hang', description: 'Never answers', inputSchema: object },
  { name: 'bad-result', description: 'Answers nonsense', inputSchema: object },
  { name: 'refuses', description: 'Throws an McpError', inputSchema: object },
  { name: 'dotted.name', description: 'first of two', inputSchema: object },
  { name: 'dotted_name', description: 'second of two', inputSchema: object },
  { name: ${JSON.stringify(longName)}, description: 'long', inputSchema: object },
  { name: 'task-only', description: 'Needs tasks', inputSchema: object, execution: { taskSupport: 'required' } },
];
const server = new Server({ name: 'fixture', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const { name, arguments: args } = request.params;
  switch (name) {
    case 'alpha':
      return {
        content: [
          { type: 'text', text: 'alpha got ' + JSON.stringify(args), annotations: { audience: ['user'], priority: 0.5 } },
          { type: 'resource_link', uri: 'file:///tmp/x.txt', name: 'x.txt', mimeType: 'text/plain' },
          { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
        ],
        structuredContent: { word: args && args.word },
        _meta: { dropped: true }, // the name is from when the bridge dropped it; it is kept now
      };
    case 'add-tool':
      tools.push({ name: 'beta', description: 'Added later', inputSchema: object });
      await server.sendToolListChanged();
      return { content: [{ type: 'text', text: 'added' }] };
    case 'crash':
      process.stderr.write('fatal: the fixture crashed on purpose\\n');
      process.exit(7);
    case 'hang':
      return new Promise(() => {});
    case 'bad-result':
      return { content: [{ type: 'text', text: 42 }] };
    case 'refuses':
      throw new McpError(-32602, 'no such thing here');
    default:
      return { content: [{ type: 'text', text: 'ran ' + name }] };
  }
});
server.connect(new StdioServerTransport());
`,
  );
  return file;
}

/** Records `onChange` calls and waits for the bridge to reach a state. */
function changeLog() {
  let calls = 0;
  const waiters: (() => void)[] = [];
  return {
    onChange: () => {
      calls++;
      for (const wake of waiters.splice(0)) wake();
    },
    get calls() {
      return calls;
    },
    /** Resolves once `check()` holds, re-checked after each `onChange`. */
    async until(check: () => boolean): Promise<void> {
      while (!check()) await new Promise<void>((resolve) => waiters.push(resolve));
    },
  };
}

function makeBridge(
  changes: ReturnType<typeof changeLog>,
  options: Partial<McpBridgeOptions> = {},
): McpBridge {
  return new McpBridge({
    onChange: changes.onChange,
    backoff: { initialMs: 20, maxMs: 200 },
    ...options,
  });
}

const noop = () => {};

function makeCtx(overrides: Partial<ExecutionContext> = {}): ExecutionContext {
  return {
    toolUseId: 'toolu_test',
    sessionId: 'session_test',
    signal: new AbortController().signal,
    log: { debug: noop, info: noop, warn: noop, error: noop },
    progress: noop,
    ...overrides,
  };
}

function toolOf(bridge: McpBridge, serverId: string, name: string): RegisteredTool {
  const source = bridge.sources().find((s) => s.id === serverId);
  const tool = source?.tools.find((t) => t.descriptor.name === name);
  if (tool === undefined) throw new Error(`no tool ${name} in source ${serverId}`);
  return tool;
}

function call(
  bridge: McpBridge,
  serverId: string,
  name: string,
  input: unknown,
  ctx: ExecutionContext = makeCtx(),
): Promise<ToolResult> {
  return toolOf(bridge, serverId, name).executor.run(input, ctx);
}

function textOf(result: ToolResult): string {
  return result.content.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join('\n');
}

/** Whether a process is still running. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A port free at the time of asking. */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Starts server-everything over streamable HTTP and resolves once it listens. */
async function startHttpEverything(port: number) {
  const child = spawn(process.execPath, [EVERYTHING_BIN, 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      seen += chunk;
      if (seen.includes('listening on port')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`HTTP server exited (${code}): ${seen}`)));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

// ---- tests ----

const NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
const bridges: McpBridge[] = [];
const dirs: string[] = [];

/** A bridge closed after the test, whatever happens in it. */
function open(changes: ReturnType<typeof changeLog>, options: Partial<McpBridgeOptions> = {}): McpBridge {
  const bridge = makeBridge(changes, options);
  bridges.push(bridge);
  return bridge;
}

afterEach(async () => {
  await Promise.all(bridges.splice(0).map((bridge) => bridge.close()));
});

afterAll(async () => {
  await Promise.all(dirs.map((dir) => fs.rm(dir, { recursive: true, force: true })));
});

function pidOf(bridge: McpBridge, name: string): number {
  const pid = bridge.status().find((s) => s.name === name)?.pid;
  if (pid === undefined) throw new Error(`server ${name} has no pid`);
  return pid;
}

describe('server-everything over stdio', () => {
  const changes = changeLog();
  let bridge: McpBridge;

  beforeAll(async () => {
    bridge = makeBridge(changes);
    await bridge.update({ everything: everything('stdio') });
  });
  afterAll(() => bridge.close());

  it('lists its tools as mcp__everything__*, with schemas, titles and annotations kept', () => {
    const [source] = bridge.sources();
    expect(source?.kind).toBe('mcp');
    expect(source?.id).toBe('everything');
    // Its one task-only tool cannot be bridged: hidden, with the reason.
    expect(source?.unavailable?.map((e) => e.descriptor.name)).toEqual([
      'mcp__everything__simulate-research-query',
    ]);
    expect(source?.unavailable?.[0]?.diagnostics[0]).toMatchObject({
      reason: 'mcp-unavailable',
      message: expect.stringContaining('can only run as an MCP task'),
    });
    const names = source?.tools.map((t) => t.descriptor.name) ?? [];
    expect(names).toContain('mcp__everything__echo');
    expect(names).toContain('mcp__everything__get-sum');
    for (const name of names) expect(name).toMatch(/^mcp__everything__/);
    for (const name of names) expect(name).toMatch(NAME_PATTERN);

    const echo = toolOf(bridge, 'everything', 'mcp__everything__echo');
    expect(echo.source).toBe('mcp');
    expect(echo.sourceId).toBe('everything');
    expect(echo.executor.ref).toEqual({ kind: 'mcp', serverId: 'everything', toolName: 'echo' });
    expect(echo.executor.validateInput).toBeUndefined();
    expect(echo.descriptor).toMatchObject({
      title: 'Echo Tool',
      description: 'Echoes back the input string',
      owner: { kind: 'mcp', serverId: 'everything' },
      executor: { kind: 'mcp', serverId: 'everything', toolName: 'echo' },
      inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    });
    const structured = toolOf(bridge, 'everything', 'mcp__everything__get-structured-content');
    expect(structured.descriptor.outputSchema).toMatchObject({
      type: 'object',
      properties: { temperature: { type: 'number' } },
    });
  });

  it('reports the server as connected, with its pid and tool count', () => {
    const [status] = bridge.status();
    expect(status).toMatchObject({ name: 'everything', state: 'connected' });
    expect(status?.tools).toBe(bridge.sources()[0]?.tools.length);
    expect(status?.pid).toBeTypeOf('number');
    expect(status?.reason).toBeUndefined();
  });

  it('calls echo and get-sum', async () => {
    const echo = await call(bridge, 'everything', 'mcp__everything__echo', { message: 'hi there' });
    expect(echo).toEqual({ content: [{ type: 'text', text: 'Echo: hi there' }] });
    const sum = await call(bridge, 'everything', 'mcp__everything__get-sum', { a: 2, b: 40 });
    expect(textOf(sum)).toBe('The sum of 2 and 40 is 42.');
    expect(sum.isError).toBeUndefined();
  });

  it('passes image blocks and embedded resources through', async () => {
    const image = await call(bridge, 'everything', 'mcp__everything__get-tiny-image', {});
    expect(image.content.map((b) => b.type)).toEqual(['text', 'image', 'text']);
    expect(image.content[1]).toMatchObject({ type: 'image', mimeType: 'image/png' });
    expect((image.content[1] as { data: string }).data.length).toBeGreaterThan(100);

    const reference = await call(bridge, 'everything', 'mcp__everything__get-resource-reference', {
      resourceType: 'Text',
      resourceId: 3,
    });
    const resource = reference.content.find((b) => b.type === 'resource');
    expect(resource).toMatchObject({ type: 'resource', resource: { uri: expect.stringContaining('3') } });
  });

  it('passes structured content and content annotations through', async () => {
    const weather = await call(bridge, 'everything', 'mcp__everything__get-structured-content', {
      location: 'Chicago',
    });
    expect(weather.structuredContent).toEqual({
      temperature: 36,
      conditions: 'Light rain / drizzle',
      humidity: 82,
    });
    const annotated = await call(bridge, 'everything', 'mcp__everything__get-annotated-message', {
      messageType: 'success',
    });
    expect(annotated.content[0]).toEqual({
      type: 'text',
      text: 'Operation completed successfully',
      annotations: { priority: 0.7, audience: ['user'] },
    });
  });

  it('forwards progress notifications to ctx.progress', async () => {
    const progress: [number, number | undefined][] = [];
    const result = await call(
      bridge,
      'everything',
      'mcp__everything__trigger-long-running-operation',
      { duration: 0.2, steps: 2 },
      makeCtx({ progress: (done, total) => progress.push([done, total]) }),
    );
    expect(textOf(result)).toContain('Long running operation completed');
    // The SDK client hands progress to a microtask but settles the response at once, so the last
    // notification, when it arrives together with the result, can be dropped.
    expect(progress[0]).toEqual([1, 2]);
    expect([
      [[1, 2]],
      [
        [1, 2],
        [2, 2],
      ],
    ]).toContainEqual(progress);
  });

  it('leaves input validation to the server: bad input comes back as the server says', async () => {
    const outcome = await call(bridge, 'everything', 'mcp__everything__get-sum', { a: 'two', b: 3 }).then(
      (result) => ({ result, error: undefined }),
      (error: Error) => ({ result: undefined, error }),
    );
    // The SDK's McpServer answers invalid arguments with an is_error result.
    expect(outcome.error).toBeUndefined();
    expect(outcome.result?.isError).toBe(true);
    expect(textOf(outcome.result ?? { content: [] })).toMatch(/Input validation error.*expected number/);
  });

  it('refuses input that is not an object, naming the server', async () => {
    await expect(call(bridge, 'everything', 'mcp__everything__echo', 'hi')).rejects.toThrow(
      'tool "echo" of MCP server "everything" takes an object as input',
    );
  });

  it('never called onChange for what update() itself reported', () => {
    expect(changes.calls).toBe(0);
  });
});

describe('server-filesystem over stdio', () => {
  it('reads a file under its allowed root; reading outside is an error result from the server', async () => {
    const root = await tempDir('fs-root');
    const outside = await tempDir('fs-outside');
    dirs.push(root, outside);
    await fs.writeFile(path.join(root, 'notes.txt'), 'inside the root\n');
    await fs.writeFile(path.join(outside, 'secret.txt'), 'outside the root\n');
    const bridge = open(changeLog());
    await bridge.update({ files: granted({ command: process.execPath, args: [FILESYSTEM_BIN, root] }) });

    const names = bridge.sources()[0]?.tools.map((t) => t.descriptor.name) ?? [];
    expect(names).toContain('mcp__files__read_text_file');
    const inside = await call(bridge, 'files', 'mcp__files__read_text_file', {
      path: path.join(root, 'notes.txt'),
    });
    expect(inside.isError).not.toBe(true);
    expect(textOf(inside)).toContain('inside the root');

    const denied = await call(bridge, 'files', 'mcp__files__read_text_file', {
      path: path.join(outside, 'secret.txt'),
    });
    expect(denied.isError).toBe(true);
    expect(textOf(denied)).toMatch(/access denied|outside allowed/i);
    expect(textOf(denied)).not.toContain('outside the root\n');
  });
});

describe('servers that cannot start', () => {
  it('a command that does not exist: unavailable with mcp-unavailable and the spawn error', async () => {
    const log: string[] = [];
    const bridge = open(changeLog(), {
      backoff: { initialMs: 60_000, maxMs: 60_000 },
      log: (m) => log.push(m),
    });
    await bridge.update({ ghost: { command: '/nonexistent/toolhost-no-such-server' } });

    const [source] = bridge.sources();
    expect(source).toMatchObject({ kind: 'mcp', id: 'ghost', tools: [] });
    expect(source?.unavailable).toHaveLength(1);
    const [entry] = source?.unavailable ?? [];
    expect(entry?.descriptor).toMatchObject({ name: 'mcp:ghost', owner: { kind: 'mcp', serverId: 'ghost' } });
    expect(entry?.diagnostics[0]?.reason).toBe('mcp-unavailable');
    expect(entry?.diagnostics[0]?.message).toMatch(/^MCP server "ghost" is unavailable: .*ENOENT/);
    const [status] = bridge.status();
    expect(status).toMatchObject({ name: 'ghost', tools: 0 });
    expect(status?.state === 'unavailable' || status?.state === 'connecting').toBe(true);
    expect(status?.reason).toMatch(/ENOENT/);
    expect(log.join('\n')).toMatch(/ghost/);
  });

  it('a command that exits at once: unavailable, with its stderr in the reason', async () => {
    const bridge = open(changeLog(), { backoff: { initialMs: 60_000, maxMs: 60_000 } });
    await bridge.update({
      quitter: {
        command: process.execPath,
        args: ['-e', 'console.error("missing API key"); process.exit(3)'],
      },
    });
    const [entry] = bridge.sources()[0]?.unavailable ?? [];
    expect(entry?.diagnostics[0]).toMatchObject({ reason: 'mcp-unavailable' });
    expect(entry?.diagnostics[0]?.message).toContain('MCP server "quitter" is unavailable');
    expect(entry?.diagnostics[0]?.message).toContain('closed the connection before it was ready');
    expect(entry?.diagnostics[0]?.message).toContain('missing API key');
  });

  it('retries with exponential backoff up to maxMs', async () => {
    const delays: number[] = [];
    let wake = () => {};
    const bridge = open(changeLog(), {
      backoff: { initialMs: 5, maxMs: 20 },
      log: (message) => {
        const match = /retrying in (\d+) ms/.exec(message);
        if (match?.[1] !== undefined) delays.push(Number(match[1]));
        wake();
      },
    });
    await bridge.update({ ghost: { command: '/nonexistent/toolhost-no-such-server' } });
    while (delays.length < 5) await new Promise<void>((resolve) => (wake = resolve));
    expect(delays.slice(0, 5)).toEqual([5, 10, 20, 20, 20]);
  });

  it('an HTTP server that is not listening: unavailable with the network error', async () => {
    const bridge = open(changeLog(), { backoff: { initialMs: 60_000, maxMs: 60_000 } });
    const port = await freePort();
    await bridge.update({ web: { url: `http://127.0.0.1:${port}/mcp`, net: [`127.0.0.1:${port}`] } });
    expect(bridge.status()[0]?.reason).toMatch(/could not connect: fetch failed.*ECONNREFUSED/);
    expect(bridge.sources()[0]?.unavailable?.[0]?.descriptor.name).toBe('mcp:web');
  });

  it('a server that never answers initialize: unavailable after connectTimeoutMs', async () => {
    const bridge = open(changeLog(), {
      connectTimeoutMs: 300,
      backoff: { initialMs: 60_000, maxMs: 60_000 },
    });
    await bridge.update({ mute: { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] } });
    expect(bridge.status()[0]?.reason).toMatch(/did not finish initializing within 300 ms/);
  });

  it('a server that is down is retried and joins once it starts', async () => {
    const dir = await tempDir('late');
    dirs.push(dir);
    const fixture = await writeFixtureServer(dir);
    const gate = path.join(dir, 'ready');
    // Exits until the gate file exists, then runs the fixture server.
    const script = `require('fs').existsSync(${JSON.stringify(gate)}) ? require(${JSON.stringify(fixture)}) : process.exit(1)`;
    const changes = changeLog();
    const bridge = open(changes);
    await bridge.update({ late: granted({ command: process.execPath, args: ['-e', script] }) });
    expect(bridge.sources()[0]?.tools).toEqual([]);
    await fs.writeFile(gate, '');
    await changes.until(() => bridge.status()[0]?.state === 'connected');
    expect(bridge.sources()[0]?.tools.length).toBeGreaterThan(0);
    expect(changes.calls).toBeGreaterThanOrEqual(1);
  });
});

describe('a server that dies mid-session', () => {
  it('fails the call in flight promptly, hides its tools, then reconnects with backoff', async () => {
    const changes = changeLog();
    const bridge = open(changes, { backoff: { initialMs: 50, maxMs: 200 } });
    await bridge.update({ everything: everything('stdio') });
    const [up] = bridge.sources();
    const tools = up?.tools.map((t) => t.descriptor.name) ?? [];
    const before = [...tools, ...(up?.unavailable ?? []).map((e) => e.descriptor.name)];
    const pid = pidOf(bridge, 'everything');
    const stale = toolOf(bridge, 'everything', 'mcp__everything__echo');

    let started: () => void = () => {};
    const firstProgress = new Promise<void>((resolve) => {
      started = resolve;
    });
    const running = call(
      bridge,
      'everything',
      'mcp__everything__trigger-long-running-operation',
      { duration: 60, steps: 600 },
      makeCtx({ progress: () => started() }),
    );
    const settled = running.then(
      () => new Error('the call should have failed'),
      (error: Error) => error,
    );
    await firstProgress;
    process.kill(pid, 'SIGKILL');

    const error = await settled;
    expect(error.message).toMatch(/^MCP server "everything" is unavailable: the connection closed/);

    await changes.until(() => bridge.status()[0]?.state !== 'connected');
    const down = bridge.sources()[0];
    expect(down?.tools).toEqual([]);
    expect(down?.unavailable?.map((e) => e.descriptor.name)).toEqual(before);
    expect(down?.unavailable?.[0]?.diagnostics[0]).toMatchObject({ reason: 'mcp-unavailable' });
    expect(down?.unavailable?.[0]?.diagnostics[0]?.message).toMatch(
      /MCP server "everything" is unavailable: the server closed the connection/,
    );
    const afterDeath = changes.calls;
    expect(afterDeath).toBeGreaterThanOrEqual(1);

    // A call through a Map built before the death fails at once, naming the server.
    await expect(stale.executor.run({ message: 'anyone?' }, makeCtx())).rejects.toThrow(
      /^MCP server "everything" is unavailable: the server closed the connection/,
    );
    await changes.until(() => bridge.status()[0]?.state === 'connected');
    expect(changes.calls).toBeGreaterThan(afterDeath);
    expect(bridge.sources()[0]?.tools.map((t) => t.descriptor.name)).toEqual(tools);
    expect(pidOf(bridge, 'everything')).not.toBe(pid);
    expect(alive(pid)).toBe(false);
    // The old RegisteredTool reaches the new connection.
    expect(textOf(await stale.executor.run({ message: 'back' }, makeCtx()))).toBe('Echo: back');
  });
});

describe('a fixture server with odd tools', () => {
  let fixture: string;
  beforeAll(async () => {
    const dir = await tempDir('fixture');
    dirs.push(dir);
    fixture = await writeFixtureServer(dir);
  });
  const config = () => granted({ command: process.execPath, args: [fixture] });

  it('sanitizes and shortens names, keeps the original in the executor ref, reports duplicates', async () => {
    const log: string[] = [];
    const bridge = open(changeLog(), { log: (m) => log.push(m) });
    await bridge.update({ 'odd.server': config() });
    const source = bridge.sources()[0];
    const names = source?.tools.map((t) => t.descriptor.name) ?? [];
    for (const name of names) expect(name).toMatch(NAME_PATTERN);
    expect(names).toContain('mcp__odd_server__alpha');
    expect(names.filter((n) => n === 'mcp__odd_server__dotted_name')).toHaveLength(1);
    expect(toolOf(bridge, 'odd.server', 'mcp__odd_server__dotted_name').executor.ref).toEqual({
      kind: 'mcp',
      serverId: 'odd.server',
      toolName: 'dotted.name',
    });
    const [status] = bridge.status();
    expect(status?.warnings).toEqual([
      'tools "dotted.name" and "dotted_name" of MCP server "odd.server" are both named "mcp__odd_server__dotted_name" once bridged; kept "dotted.name"',
    ]);
    expect(log.join('\n')).toContain('kept "dotted.name"');

    const long = source?.tools.find((t) => t.descriptor.name.startsWith('mcp__odd_server__a-very-long'));
    expect(long?.descriptor.name).toHaveLength(64);
    expect(long?.descriptor.name).toMatch(/_[0-9a-f]{8}$/);
    expect(long?.executor.ref).toMatchObject({ toolName: `a-very-long-tool-name-${'x'.repeat(60)}` });
    const result = await long?.executor.run({}, makeCtx());
    expect(textOf(result ?? { content: [] })).toBe(`ran a-very-long-tool-name-${'x'.repeat(60)}`);
  });

  it('hides a task-only tool with mcp-unavailable while the server is up', async () => {
    const bridge = open(changeLog());
    await bridge.update({ fx: config() });
    const source = bridge.sources()[0];
    expect(source?.tools.map((t) => t.descriptor.name)).not.toContain('mcp__fx__task-only');
    expect(source?.unavailable).toHaveLength(1);
    expect(source?.unavailable?.[0]?.descriptor.name).toBe('mcp__fx__task-only');
    expect(source?.unavailable?.[0]?.diagnostics[0]).toMatchObject({
      reason: 'mcp-unavailable',
      message: expect.stringContaining('MCP task'),
    });
  });

  it("keeps every block type, annotations, structured content and the result's _meta", async () => {
    const bridge = open(changeLog());
    await bridge.update({ fx: config() });
    const result = await call(bridge, 'fx', 'mcp__fx__alpha', { word: 'hello' });
    expect(result).toEqual({
      content: [
        {
          type: 'text',
          text: 'alpha got {"word":"hello"}',
          annotations: { audience: ['user'], priority: 0.5 },
        },
        { type: 'resource_link', uri: 'file:///tmp/x.txt', name: 'x.txt', mimeType: 'text/plain' },
        { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
      ],
      structuredContent: { word: 'hello' },
      meta: { dropped: true },
    });
    expect(toolOf(bridge, 'fx', 'mcp__fx__alpha').descriptor.title).toBe('Alpha');
  });

  it('a result the server itself cannot send is an error naming the server', async () => {
    const bridge = open(changeLog());
    await bridge.update({ fx: config() });
    await expect(call(bridge, 'fx', 'mcp__fx__bad-result', {})).rejects.toThrow(
      /^MCP server "fx" answered the call to tool "bad-result" with an error: .*Invalid tools\/call result/,
    );
  });

  it("an SDK server's McpError reaches the model once, without the SDK's doubled prefix", async () => {
    const bridge = open(changeLog());
    await bridge.update({ fx: config() });
    await expect(call(bridge, 'fx', 'mcp__fx__refuses', {})).rejects.toThrow(
      new Error('MCP server "fx" answered the call to tool "refuses" with an error: no such thing here'),
    );
  });

  it('tools/list_changed: re-lists and calls onChange', async () => {
    const changes = changeLog();
    const bridge = open(changes);
    await bridge.update({ fx: config() });
    expect(bridge.sources()[0]?.tools.map((t) => t.descriptor.name)).not.toContain('mcp__fx__beta');
    await call(bridge, 'fx', 'mcp__fx__add-tool', {});
    await changes.until(() =>
      (bridge.sources()[0]?.tools ?? []).some((t) => t.descriptor.name === 'mcp__fx__beta'),
    );
    expect(changes.calls).toBe(1);
    expect(toolOf(bridge, 'fx', 'mcp__fx__beta').descriptor.description).toBe('Added later');
  });

  it('a call without an answer fails after its call limit, naming the setting', async () => {
    const bridge = open(changeLog(), { callTimeout: { ms: 200, setting: 'limits.mcpCallTimeoutMs' } });
    await bridge.update({ fx: config() });
    await expect(call(bridge, 'fx', 'mcp__fx__hang', {})).rejects.toThrow(
      'MCP server "fx" did not answer within 200 ms (tool "hang"; limit: limits.mcpCallTimeoutMs)',
    );
    // The server is still usable.
    expect(textOf(await call(bridge, 'fx', 'mcp__fx__alpha', {}))).toContain('alpha got');
  });

  it('aborting ctx.signal cancels the call at once', async () => {
    const bridge = open(changeLog());
    await bridge.update({ fx: config() });
    const controller = new AbortController();
    const running = call(bridge, 'fx', 'mcp__fx__hang', {}, makeCtx({ signal: controller.signal }));
    controller.abort(new Error('caller gave up'));
    await expect(running).rejects.toThrow('MCP server "fx": the call to tool "hang" was cancelled');
    expect(bridge.status()[0]?.state).toBe('connected');
  });

  it('a crash during a call: the call fails, the reason carries the stderr tail', async () => {
    const changes = changeLog();
    const bridge = open(changes, { backoff: { initialMs: 60_000, maxMs: 60_000 } });
    await bridge.update({ fx: config() });
    const count = bridge.sources()[0]?.tools.length ?? 0;
    const stale = toolOf(bridge, 'fx', 'mcp__fx__alpha');
    await expect(call(bridge, 'fx', 'mcp__fx__crash', {})).rejects.toThrow(
      'MCP server "fx" is unavailable: the connection closed while tool "crash" was running',
    );
    await changes.until(() => bridge.status()[0]?.state === 'unavailable');
    expect(bridge.status()[0]?.reason).toContain('fatal: the fixture crashed on purpose');
    // Every known tool is listed as hidden, the task-only one too.
    expect(bridge.sources()[0]?.unavailable).toHaveLength(count + 1);
    // A Map built before the crash still holds alpha: calling it fails at once with the reason.
    await expect(stale.executor.run({}, makeCtx())).rejects.toThrow(
      /^MCP server "fx" is unavailable: the server closed the connection; last stderr: .*fatal: the fixture crashed on purpose/,
    );
  });
});

describe('update()', () => {
  it('takes the mcpServers of a parsed config as they are', () => {
    const fromConfig = (servers: NonNullable<ToolhostConfig['mcpServers']>) => {
      const accepted: Readonly<Record<string, McpServerConfig>> = servers;
      return accepted;
    };
    expect(fromConfig({ a: { command: 'x' } })).toEqual({ a: { command: 'x' } });
  });

  let fixture: string;
  beforeAll(async () => {
    const dir = await tempDir('update');
    dirs.push(dir);
    fixture = await writeFixtureServer(dir);
  });

  it('removes a removed server, reconnects a changed one, keeps an unchanged one', async () => {
    const changes = changeLog();
    const bridge = open(changes);
    const a = granted({ command: process.execPath, args: [fixture], env: { A: '1', B: '2' } });
    const b = granted({ command: process.execPath, args: [fixture] });
    await bridge.update({ a, b });
    expect(bridge.sources().map((s) => s.id)).toEqual(['a', 'b']);
    const pidA = pidOf(bridge, 'a');
    const pidB = pidOf(bridge, 'b');

    // Same content, keys in another order: nothing restarts.
    await bridge.update({
      b,
      a: { sandbox: a.sandbox, env: { B: '2', A: '1' }, args: [fixture], command: process.execPath },
    });
    expect(pidOf(bridge, 'a')).toBe(pidA);
    expect(pidOf(bridge, 'b')).toBe(pidB);

    // b removed: its source is gone at once. a changed: a new process.
    await bridge.update({ a: { ...a, env: { A: '1', B: '3' } } });
    expect(bridge.sources().map((s) => s.id)).toEqual(['a']);
    expect(bridge.status().map((s) => s.name)).toEqual(['a']);
    expect(bridge.status()[0]?.state).toBe('connected');
    expect(pidOf(bridge, 'a')).not.toBe(pidA);
    await bridge.close();
    expect(alive(pidA)).toBe(false);
    expect(alive(pidB)).toBe(false);
    expect(changes.calls).toBe(0);
  });

  it('close() stops every server and cancels reconnects; update() after close rejects', async () => {
    const changes = changeLog();
    const bridge = open(changes, { backoff: { initialMs: 10, maxMs: 10 } });
    await bridge.update({
      up: granted({ command: process.execPath, args: [fixture] }),
      down: { command: '/nonexistent/toolhost-no-such-server' },
    });
    const pid = pidOf(bridge, 'up');
    await bridge.close();
    expect(alive(pid)).toBe(false);
    expect(bridge.sources()).toEqual([]);
    await expect(bridge.update({})).rejects.toThrow('the MCP bridge is closed');
  });
});

describe('a server over streamable HTTP', () => {
  it('goes where ctx.fetch may: a loopback or private address only when mcpServers.<id>.net names it', async () => {
    const server = await startHttpEverything(await freePort());
    const bridge = open(changeLog(), { backoff: { initialMs: 60_000, maxMs: 60_000 } });
    try {
      const { host } = new URL(server.url);
      await bridge.update({ web: { url: server.url } });
      expect(bridge.status()[0]?.state).toBe('unavailable');
      expect(bridge.status()[0]?.reason).toContain(
        `its URL's host ${host} is not allowed: it is 127.0.0.1, a loopback address (127.0.0.0/8), reached only when a grant names the address; a remote server connects to loopback and private addresses only when mcpServers.web.net names the address: add ${JSON.stringify(host)} to mcpServers.web.net to allow it`,
      );
      // A name that resolves to loopback is refused too, unless the grant opens loopback.
      const local = `http://localhost:${new URL(server.url).port}/mcp`;
      await bridge.update({ web: { url: local } });
      expect(bridge.status()[0]?.reason).toContain('mcpServers.web.net');
      await bridge.update({ web: { url: local, net: [`localhost:${new URL(server.url).port}`] } });
      expect(bridge.status()[0]?.state).toBe('connected');
    } finally {
      await bridge.close();
      await server.kill();
    }
  });

  it('connects with headers, calls a tool, and goes unavailable when the server dies', async () => {
    const server = await startHttpEverything(await freePort());
    const changes = changeLog();
    const bridge = open(changes, { backoff: { initialMs: 60_000, maxMs: 60_000 } });
    try {
      // A loopback URL: connected to only because `net` names the address.
      await bridge.update({
        web: { url: server.url, headers: { 'X-Test': 'yes' }, net: [new URL(server.url).host] },
      });
      expect(bridge.status()[0]).toMatchObject({ name: 'web', state: 'connected' });
      expect(bridge.status()[0]?.pid).toBeUndefined();
      const echo = await call(bridge, 'web', 'mcp__web__echo', { message: 'over http' });
      expect(textOf(echo)).toBe('Echo: over http');
    } finally {
      await server.kill();
    }
    await expect(call(bridge, 'web', 'mcp__web__echo', { message: 'anyone?' })).rejects.toThrow(
      /^MCP server "web" is unavailable/,
    );
    await changes.until(() => bridge.status()[0]?.state === 'unavailable');
    expect(bridge.sources()[0]?.unavailable?.[0]?.diagnostics[0]).toMatchObject({
      reason: 'mcp-unavailable',
    });
  });
});
