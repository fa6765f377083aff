import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { homedir, tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHost, resultText, type ToolHost } from '@toolhost/host';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
const PROBE = path.resolve(here, '../fixtures/servers/probe-server.mjs');
/** The workspace's node_modules, which a jailed server is granted to read: its code is there. */
const NODE_MODULES = path.resolve(here, '../../node_modules');
const SDK = path.join(NODE_MODULES, '@modelcontextprotocol', 'sdk');
const FILESYSTEM_BIN = path.join(
  path.dirname(require.resolve('@modelcontextprotocol/server-filesystem/package.json')),
  'dist',
  'index.js',
);
/** A variable of the host's environment no jailed server may see unless its entry names it. */
const CANARY = 'TOOLHOST_SERVER_CANARY';

let root: string;
let home: string;
let host: ToolHost | undefined;

beforeEach(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), 'toolhost-server-jail-')));
  await mkdir(path.join(root, 'allowed'));
  await writeFile(path.join(root, 'allowed', 'note.txt'), 'allowed text');
  await writeFile(path.join(root, 'secret.txt'), 'project secret');
  // A `~/.ssh`-style key, in the real home folder (whose files no server is shown).
  home = await mkdtemp(path.join(homedir(), '.toolhost-ssh-'));
  await writeFile(path.join(home, 'id_ed25519'), 'PRIVATE KEY');
});
afterEach(async () => {
  await host?.close();
  host = undefined;
  await rm(root, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
});

/** The probe server, with what it needs to run granted (the SDK's folder and its own). */
function probe(
  sandbox: { net?: string[]; read?: string[]; write?: string[]; env?: string[] } = {},
  env?: Record<string, string>,
) {
  return {
    command: process.execPath,
    args: [PROBE, SDK],
    ...(env === undefined ? {} : { env }),
    sandbox: {
      ...(sandbox.net === undefined ? {} : { net: sandbox.net }),
      ...(sandbox.env === undefined ? {} : { env: sandbox.env }),
      fs: { read: [NODE_MODULES, path.dirname(PROBE), ...(sandbox.read ?? [])], write: sandbox.write ?? [] },
    },
  };
}

async function start(servers: Record<string, unknown>): Promise<ToolHost> {
  host = await createHost({
    root,
    watch: false,
    cache: false,
    builtins: false,
    mcpServers: servers as never,
  });
  const down = host.mcpServers.filter((s) => s.state !== 'connected');
  if (down.length > 0) throw new Error(`not connected: ${JSON.stringify(down)}`);
  return host;
}

async function call(tool: string, input: Record<string, unknown>) {
  if (host === undefined) throw new Error('no host');
  const { result } = await host.session().call(tool, input);
  return { text: resultText(result), isError: result.isError === true };
}

describe('a stdio MCP server in its default jail', () => {
  it('reads its granted folder and nothing else of the project or the home folder', async () => {
    await start({ probe: probe({ read: ['allowed'] }) });
    expect(await call('mcp__probe__read', { path: path.join(root, 'allowed', 'note.txt') })).toEqual({
      text: 'allowed text',
      isError: false,
    });
    const secret = await call('mcp__probe__read', { path: path.join(root, 'secret.txt') });
    expect(secret.isError).toBe(true);
    expect(secret.text).toContain('ENOENT');
    expect(secret.text).toContain(
      'the jail refused reading secret.txt (outside what it may read); add "secret.txt" to mcpServers.probe.sandbox.fs.read to allow it',
    );
    const key = await call('mcp__probe__read', { path: path.join(home, 'id_ed25519') });
    expect(key.isError).toBe(true);
    expect(key.text).not.toContain('PRIVATE KEY');
    expect(key.text).toContain('mcpServers.probe.sandbox.fs.read');
    for (const file of ['/etc/shadow', path.join(root, 'toolhost.config.json')]) {
      expect((await call('mcp__probe__read', { path: file })).text).not.toMatch(/root:|mcpServers/);
    }
  });

  it('writes only where fs.write grants, and keeps its own /tmp', async () => {
    await start({ probe: probe({ write: ['allowed'] }) });
    expect(
      (await call('mcp__probe__write', { path: path.join(root, 'allowed', 'out.txt'), text: 'ok' })).text,
    ).toBe('written');
    expect(await readFile(path.join(root, 'allowed', 'out.txt'), 'utf8')).toBe('ok');
    // The project is not in its view (the folders above a grant are empty ones of the jail's own).
    await call('mcp__probe__write', { path: path.join(root, 'planted.txt'), text: 'x' });
    await expect(readFile(path.join(root, 'planted.txt'))).rejects.toThrow();
    expect((await call('mcp__probe__write', { path: '/tmp/scratch', text: 'x' })).text).toBe('written');
    await expect(readFile('/tmp/scratch')).rejects.toThrow();
  });

  it('granted the whole project to write, still cannot read the config or change plugins/, skills/ or the config', async () => {
    await mkdir(path.join(root, 'plugins'));
    await writeFile(
      path.join(root, 'toolhost.config.json'),
      JSON.stringify({ mcpServers: {}, signals: { auth: ['secret-in-config'] } }),
    );
    await start({ probe: probe({ write: ['.'] }) });
    const config = path.join(root, 'toolhost.config.json');
    expect((await call('mcp__probe__read', { path: config })).text).not.toContain('secret-in-config');
    expect((await call('mcp__probe__write', { path: config, text: '{}' })).isError).toBe(true);
    expect(
      (await call('mcp__probe__write', { path: path.join(root, 'plugins', 'evil.ts'), text: 'x' })).isError,
    ).toBe(true);
    expect((await call('mcp__probe__write', { path: path.join(root, 'ok.txt'), text: 'fine' })).text).toBe(
      'written',
    );
    expect(await readFile(config, 'utf8')).toContain('secret-in-config');
    await expect(readFile(path.join(root, 'plugins', 'evil.ts'))).rejects.toThrow();
  });

  it("sees only PATH, HOME, TMPDIR, PWD, its entry's env and the variables sandbox.env names", async () => {
    process.env[CANARY] = 'host secret';
    process.env[`${CANARY}_GRANTED`] = 'granted';
    try {
      await start({ probe: probe({ env: [`${CANARY}_GRANTED`] }, { NAMED: 'by the entry' }) });
      expect(JSON.parse((await call('mcp__probe__env', {})).text)).toEqual(
        // PWD is bubblewrap's, the folder it starts in.
        ['HOME', 'NAMED', 'PATH', 'PWD', 'TMPDIR', `${CANARY}_GRANTED`].sort(),
      );
    } finally {
      delete process.env[CANARY];
      delete process.env[`${CANARY}_GRANTED`];
    }
  });

  it('@modelcontextprotocol/server-filesystem keeps serving its allowed folder, and even told "/" reaches nothing else', async () => {
    const allowed = path.join(root, 'allowed');
    await start({
      files: {
        command: process.execPath,
        args: [FILESYSTEM_BIN, allowed, '/'],
        sandbox: { fs: { read: [NODE_MODULES], write: [allowed] } },
      },
    });
    expect((await call('mcp__files__read_text_file', { path: path.join(allowed, 'note.txt') })).text).toBe(
      'allowed text',
    );
    await call('mcp__files__write_file', { path: path.join(allowed, 'new.txt'), content: 'from the server' });
    expect(await readFile(path.join(allowed, 'new.txt'), 'utf8')).toBe('from the server');
    const secret = await call('mcp__files__read_text_file', { path: path.join(root, 'secret.txt') });
    expect(secret.isError).toBe(true);
    expect(secret.text).not.toContain('project secret');
    expect(secret.text).toContain('add "secret.txt" to mcpServers.files.sandbox.fs.read');
    const key = await call('mcp__files__read_text_file', { path: path.join(home, 'id_ed25519') });
    expect(key.text).not.toContain('PRIVATE KEY');
  });

  it('a command outside its view fails at start, naming the grant that would show it', async () => {
    host = await createHost({
      root,
      watch: false,
      cache: false,
      builtins: false,
      mcpServers: { lost: { command: process.execPath, args: [PROBE, SDK] } },
    });
    const [status] = host.mcpServers;
    expect(status?.state).toBe('unavailable');
    expect(status?.reason).toContain('mcpServers.lost.sandbox.fs.read');
  });

  it('sandbox: false runs it unjailed, on purpose, and says so', async () => {
    await start({ open: { command: process.execPath, args: [PROBE, SDK], sandbox: false } });
    expect((await call('mcp__open__read', { path: path.join(root, 'secret.txt') })).text).toBe(
      'project secret',
    );
    expect(host?.mcpServers[0]?.jail).toEqual({
      jailed: false,
      reason: 'mcpServers.open.sandbox is false',
      optedOut: true,
    });
  });
});

describe('a jailed server and the network', () => {
  let server: Server;
  let port = 0;
  let requests = 0;
  beforeAll(async () => {
    server = createServer((_request, response) => {
      requests += 1;
      response.end('hello from the host');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('reaches a loopback server of the host only once a grant names it', async () => {
    await start({ probe: probe() });
    requests = 0;
    const refused = await call('mcp__probe__fetch', { url: `http://127.0.0.1:${port}/` });
    expect(refused.isError).toBe(true);
    expect(requests).toBe(0);
    await host?.close();
    await start({ probe: probe({ net: [`127.0.0.1:${port}`] }) });
    const granted = await call('mcp__probe__fetch', { url: `http://127.0.0.1:${port}/` });
    expect(granted).toEqual({ text: '200 hello from the host', isError: false });
    expect(requests).toBe(1);
  });

  it('says which host was refused and the key that grants it', async () => {
    await start({ probe: probe({ net: ['example.com'] }) });
    const refused = await call('mcp__probe__fetch', { url: `http://127.0.0.1:${port}/` });
    expect(refused.text).toContain(
      `the jail refused a connection to 127.0.0.1:${port} (no net grant names it); add "127.0.0.1:${port}" to mcpServers.probe.sandbox.net to allow it`,
    );
    expect(host?.mcpServers[0]?.refused?.[0]).toContain('mcpServers.probe.sandbox.net');
  });
});
