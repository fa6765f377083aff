import { existsSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createHost, type ToolHost } from '@toolhost/host';
import type { ProcessSandbox } from '@toolhost/host/internal';
import { internalsOf } from '@toolhost/host/internal';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CLI, cleanEnv, project, startToolhost, withToken } from '../cli/cli.js';

/** A variable of the environment the host runs with, which the executor must not inherit. */
const CANARY = 'TOOLHOST_WALLS_CANARY';

/** A file in $HOME, which nothing jailed may see. */
const HOME_CANARY = path.join(homedir(), `.toolhost-walls-canary-${process.pid}`);

const cleanups: (() => Promise<unknown>)[] = [];
beforeAll(() => writeFileSync(HOME_CANARY, 'in home'));
afterAll(() => rmSync(HOME_CANARY, { force: true }));
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/** The process under `ancestor` that runs plugin code: Node running `executor-main.js`. */
function executorUnder(ancestor: number): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    if (argv[0] !== process.execPath || !argv.some((arg) => arg.endsWith('executor-main.js'))) continue;
    for (let up = parentOf(pid); up !== undefined && up > 1; up = parentOf(up))
      if (up === ancestor) return pid;
  }
  return undefined;
}

/** What the host-side view of process `pid` says of its walls (read from outside, through /proc). */
function seenFromOutside(pid: number, root: string) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const ns = (kind: string) =>
    readlinkSync(`/proc/${pid}/ns/${kind}`) !== readlinkSync(`/proc/self/ns/${kind}`);
  const inside = (file: string) => existsSync(path.join(`/proc/${pid}/root`, file));
  // $HOME may hold the Node binary (nvm, or .ci/run's cache), bound alone at its path: then the
  // home folder exists in the jail as the way to it, and holds nothing else.
  const home = homedir();
  const homeInJail = path.join(`/proc/${pid}/root`, home);
  const wayToNode = process.execPath.startsWith(`${home}${path.sep}`)
    ? [path.relative(home, process.execPath).split(path.sep)[0]]
    : [];
  return {
    ownNamespaces: {
      net: ns('net'),
      mnt: ns('mnt'),
      pid: ns('pid'),
      ipc: ns('ipc'),
      uts: ns('uts'),
      user: ns('user'),
    },
    noNewPrivs: /^NoNewPrivs:\s+1$/m.test(status),
    seccomp: /^Seccomp:\s+2$/m.test(status),
    environ: readFileSync(`/proc/${pid}/environ`, 'utf8')
      .split('\0')
      .filter((e) => e !== ''),
    sees: {
      project: inside(root),
      config: inside(path.join(root, 'toolhost.config.json')),
      home: existsSync(homeInJail) && readdirSync(homeInJail).some((name) => !wayToNode.includes(name)),
      homeCanary: inside(HOME_CANARY),
      shadow: inside('/etc/shadow'),
      etc: inside('/etc'),
    },
  };
}

function expectJailed(pid: number | undefined, root: string): void {
  expect(pid, 'a process running plugin code').toBeDefined();
  const seen = seenFromOutside(pid as number, root);
  expect(seen.ownNamespaces).toEqual({ net: true, mnt: true, pid: true, ipc: true, uts: true, user: true });
  expect(seen.noNewPrivs).toBe(true);
  expect(seen.seccomp).toBe(true);
  expect(seen.environ.some((entry) => entry.startsWith(`${CANARY}=`))).toBe(false);
  expect(
    seen.environ.map((entry) => entry.split('=')[0]).filter((name) => name !== 'PWD' && name !== 'TZ'),
  ).toEqual([]);
  expect(seen.sees).toEqual({
    project: false,
    config: false,
    home: false,
    homeCanary: false,
    shadow: false,
    etc: false,
  });
}

const CONFIG = { builtins: false };
const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text;

async function client(transport: StdioClientTransport | StreamableHTTPClientTransport): Promise<Client> {
  const made = new Client({ name: 'walls-test', version: '1.0.0' });
  await made.connect(transport);
  cleanups.push(() => made.close());
  return made;
}

describe('the process that runs plugin code, seen from outside', () => {
  it('in createHost: jailed, and it answers', async () => {
    const { root, dispose } = await project(['healthy'], CONFIG);
    cleanups.push(dispose);
    process.env[CANARY] = 'host secret';
    let host: ToolHost;
    try {
      host = await createHost({ root, watch: false, cache: false });
      cleanups.push(() => host.close());
      const result = await host.session().call('healthy_echo', { text: 'embedded' });
      expect(text(result.result)).toBe('echo: embedded');
    } finally {
      delete process.env[CANARY];
    }
    expect(host.walls).toEqual({ isolate: true, jail: { up: true, kind: 'bubblewrap', seccomp: true } });
    expectJailed((internalsOf(host).sandbox as ProcessSandbox).executorPid, root);
  });

  it('in toolhost serve over stdio (jailed by default now, not inline)', async () => {
    const { root, dispose } = await project(['healthy'], CONFIG);
    cleanups.push(dispose);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'serve', '--no-watch', '--root', root],
      env: cleanEnv({ [CANARY]: 'host secret' }) as Record<string, string>,
      stderr: 'pipe',
    });
    const mcp = await client(transport);
    const result = await mcp.callTool({ name: 'healthy_echo', arguments: { text: 'stdio' } });
    expect(text(result)).toBe('echo: stdio');
    expectJailed(executorUnder(transport.pid ?? 0), root);
  });

  it.each([
    [
      'serve --http',
      ['serve', '--http', '0', '--no-watch'],
      'stderr',
      /MCP streamable HTTP at (http:\/\/127\.0\.0\.1:\d+\/mcp)/,
    ],
    ['dev', ['dev', '--port', '0'], 'stdout', /MCP (http:\/\/127\.0\.0\.1:\d+\/mcp) \(streamable HTTP\)/],
  ] as const)('in toolhost %s', async (_name, args, stream, line) => {
    const { root, dispose } = await project(['healthy'], CONFIG);
    cleanups.push(dispose);
    const server = startToolhost([...args, '--root', root], { env: cleanEnv({ [CANARY]: 'host secret' }) });
    cleanups.push(() => server.stop());
    const [, url = ''] = await server[stream].waitFor(line);
    expect(server[stream].text).toMatch(/two walls: isolates, in an executor process jailed by bubblewrap/);
    const mcp = await client(new StreamableHTTPClientTransport(new URL(url), withToken(root)));
    const result = await mcp.callTool({ name: 'healthy_echo', arguments: { text: 'http' } });
    expect(text(result)).toBe('echo: http');
    expectJailed(executorUnder(server.child.pid ?? 0), root);
  });
});
