import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, REPO, toolhostInProcess } from './cli.js';

/** Splits a POSIX shell line into words: blanks separate, single quotes and `'\''` as shellWord writes them. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < line.length; i += 1) {
    const c = line[i] ?? '';
    if (c === ' ') {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      word = (word ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (c === '\\') {
      word = (word ?? '') + (line[i + 1] ?? '');
      i += 1;
    } else word = (word ?? '') + c;
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** Starts `command args` as an MCP client would, from `cwd`, and returns the connected SDK client. */
async function connect(command: string, args: readonly string[], cwd: string): Promise<Client> {
  const client = new Client({ name: 'mcp-config-test', version: '1.0.0' });
  const env = cleanEnv() as Record<string, string>;
  // What a client started from the desktop has: no npm variables, nothing of this repository.
  for (const key of Object.keys(env)) if (key.startsWith('npm_')) delete env[key];
  await client.connect(new StdioClientTransport({ command, args: [...args], cwd, env, stderr: 'ignore' }));
  return client;
}

describe('toolhost mcp-config', () => {
  let base: string;
  /** A project folder whose name needs quoting in a shell. */
  let root: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    base = await mkdtemp(path.join(tmpdir(), 'toolhost-mcp-config-'));
    root = path.join(base, "it's my project");
    await mkdir(path.join(root, 'plugins'), { recursive: true });
    await cp(path.join(REPO, 'test/fixtures/plugins/healthy'), path.join(root, 'plugins/healthy'), {
      recursive: true,
    });
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await rm(base, { recursive: true, force: true });
  });

  it('prints an mcpServers entry that an MCP client started in another folder can use', async () => {
    const run = await toolhostInProcess(['mcp-config', '--json', '--root', root], { cwd: tmpdir() });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const entry = JSON.parse(run.stdout).mcpServers.toolhost;
    // Absolute paths only: nothing a client's working directory or the npm registry could change.
    expect(entry.command).toBe(process.execPath);
    expect(entry.args).toEqual([
      '--no-node-snapshot',
      path.join(REPO, 'packages/host/bin/toolhost.js'),
      'serve',
      '--root',
      root,
    ]);
    const client = await connect(entry.command, entry.args, tmpdir());
    clients.push(client);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('healthy_echo');
    const result = await client.callTool({ name: 'healthy_echo', arguments: { text: 'from anywhere' } });
    expect(result).toMatchObject({ content: [{ type: 'text', text: 'echo: from anywhere' }] });
  });

  it('prints the same entry and a claude mcp add line that runs it, quoted for the shell', async () => {
    const json = await toolhostInProcess(['mcp-config', '--json', '--root', root, '--name', 'tools'], {
      cwd: tmpdir(),
    });
    const human = await toolhostInProcess(['mcp-config', '--root', root, '--name', 'tools'], {
      cwd: tmpdir(),
    });
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(json.stdout.trim());
    const line = human.stdout.split('\n').find((l) => l.startsWith('claude mcp add '));
    expect(line).toBeDefined();
    const [claude, mcp, add, name, dashes, command, ...args] = shellWords(line ?? '');
    expect([claude, mcp, add, name, dashes]).toEqual(['claude', 'mcp', 'add', 'tools', '--']);
    expect({ command, args }).toEqual(JSON.parse(json.stdout).mcpServers.tools);
    const client = await connect(command ?? '', args, tmpdir());
    clients.push(client);
    const result = await client.callTool({ name: 'healthy_echo', arguments: { text: 'claude code' } });
    expect(result).toMatchObject({ content: [{ type: 'text', text: 'echo: claude code' }] });
  });

  it('refuses a server name a client would not take, and says when the root is not a project', async () => {
    const bad = await toolhostInProcess(['mcp-config', '--name', 'my tools', '--root', root]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--name must be 1-64 letters, digits, "_" or "-", not "my tools"/);
    const empty = await toolhostInProcess(['mcp-config', '--root', base]);
    expect(empty.code).toBe(0);
    expect(empty.stderr).toContain('has no toolhost.config.json and no plugins/ folder');
  });
});
