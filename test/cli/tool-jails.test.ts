import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { project, REPO, toolhost } from './cli.js';

const HOST = pathToFileURL(path.join(REPO, 'packages/host/dist/index.js')).href;
const NODE_MODULES = path.join(REPO, 'node_modules');
const PROBE = path.join(REPO, 'test/fixtures/servers/probe-server.mjs');
const SDK = path.join(NODE_MODULES, '@modelcontextprotocol/sdk');

let root: string;
let dispose: () => Promise<void>;
let outside: string;

beforeEach(async () => {
  // Not under /tmp: exec's jail has a /tmp of its own.
  outside = await mkdtemp(path.join(homedir(), '.toolhost-grant-'));
  ({ root, dispose } = await project([], {
    builtins: { exec: { enabled: true } },
    mcpServers: {
      jailed: {
        command: process.execPath,
        args: [PROBE, SDK],
        sandbox: { fs: { read: [NODE_MODULES, path.dirname(PROBE)] } },
      },
      open: { command: process.execPath, args: [PROBE, SDK], sandbox: false },
    },
  }));
});
afterEach(async () => {
  await dispose();
  await rm(outside, { recursive: true, force: true });
});

/** Runs one call in a host of the project, in-process, as an agent would. */
async function callOnce(tool: string, input: Record<string, unknown>): Promise<string> {
  const { createHost, resultText } = (await import(HOST)) as typeof import('@toolhost/host');
  const host = await createHost({ root, watch: false, cache: false });
  try {
    return resultText((await host.session().call(tool, input)).result);
  } finally {
    await host.close();
  }
}

const execOnce = (script: string) => callOnce('exec', { command: 'sh', args: ['-c', script] });

describe('the walls of exec and MCP servers, as the CLI says them', () => {
  it('doctor says what each may reach, what was refused lately and how to grant it', async () => {
    await execOnce(`echo x > ${outside}/f.txt`);
    const { stdout } = await toolhost(['doctor', '--root', root], { cwd: root, timeoutMs: 60_000 });
    expect(stdout).toContain(
      'exec walls: jailed: writes the workspace (not the control files), reads the rest read-only; granted read: none; write: none; net: none; env: none; refused lately:',
    );
    expect(stdout).toContain(
      `the jail refused writing ${tilde(outside)}/f.txt (outside the workspace, which is all exec may write); add ${JSON.stringify(tilde(outside))} to builtins.exec.sandbox.fs.write to allow it`,
    );
    expect(stdout).toContain('fix: toolhost grant exec writes the grants above into the config');
    expect(stdout).toContain(
      'mcp server jailed walls: jailed: sees the system read-only, a private /tmp and home',
    );
    expect(stdout).toContain(
      "mcp server open walls: NOT jailed, on purpose (mcpServers.open.sandbox is false): it has the user's reach",
    );
  });

  it('grant exec writes what its jail refused into the config, showing the diff first', async () => {
    await execOnce(`echo x > ${outside}/f.txt`);
    const asked = await toolhost(['grant', 'exec', '--root', root], { cwd: root, timeoutMs: 60_000 });
    expect(asked.code).toBe(1);
    expect(asked.stdout).toContain(`+ ${' '.repeat(12)}${JSON.stringify(tilde(outside))}`);
    const written = await toolhost(['grant', 'exec', '--yes', '--root', root], {
      cwd: root,
      timeoutMs: 60_000,
    });
    expect(written.code).toBe(0);
    const config = JSON.parse(await readFile(path.join(root, 'toolhost.config.json'), 'utf8'));
    expect(config.builtins.exec).toEqual({ enabled: true, sandbox: { fs: { write: [tilde(outside)] } } });
    // Granted: the same write now lands.
    await execOnce(`echo x > ${outside}/f.txt`);
    expect(await readFile(path.join(outside, 'f.txt'), 'utf8')).toBe('x\n');
  });

  it('grant SERVER writes the path its jail refused at mcpServers.<id>.sandbox.fs.read', async () => {
    await writeFile(path.join(root, 'data.txt'), 'project data');
    expect(await callOnce('mcp__jailed__read', { path: path.join(root, 'data.txt') })).toContain(
      'add "data.txt" to mcpServers.jailed.sandbox.fs.read',
    );
    const written = await toolhost(['grant', 'jailed', '--yes', '--root', root], {
      cwd: root,
      timeoutMs: 60_000,
    });
    expect(written.stdout).toContain(
      'Wrote toolhost.config.json: MCP server jailed now has the grants its jail refused.',
    );
    const config = JSON.parse(await readFile(path.join(root, 'toolhost.config.json'), 'utf8'));
    expect(config.mcpServers.jailed.sandbox.fs.read).toEqual([NODE_MODULES, path.dirname(PROBE), 'data.txt']);
    expect(await callOnce('mcp__jailed__read', { path: path.join(root, 'data.txt') })).toBe('project data');
  });

  it('list --json carries toolWalls: each process tool jailed and with what, or why not', async () => {
    const { stdout } = await toolhost(['list', '--json', '--root', root], { cwd: root, timeoutMs: 60_000 });
    const json = JSON.parse(stdout) as { toolWalls: unknown[] };
    expect(json.toolWalls).toEqual([
      {
        tool: 'exec',
        kind: 'process',
        jailed: true,
        seccomp: true,
        grants: { read: [], write: [], net: [], env: [] },
        refused: [],
      },
      {
        tool: 'mcp:jailed',
        kind: 'process',
        jailed: true,
        seccomp: true,
        grants: { read: [NODE_MODULES, path.dirname(PROBE)], write: [], net: [], env: [] },
        refused: [],
      },
      {
        tool: 'mcp:open',
        kind: 'process',
        jailed: false,
        reason: 'mcpServers.open.sandbox is false',
        optedOut: true,
        refused: [],
      },
    ]);
  });
});

/** A path in the home folder as refusals write it (no more of the host's layout than needed). */
function tilde(file: string): string {
  return `~/${path.relative(homedir(), file)}`;
}
