import { lstat, mkdir, mkdtemp, readdir, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHost, resultText, type ToolHost } from '@toolhost/host';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

/**
 * A control path kept elsewhere and linked into the workspace (`skills -> ~/shared/skills`,
 * `toolhost.config.json -> ../configs/proj.json`): the jail holds the link's target read-only,
 * but the link itself is an entry of a folder the jailed program may write. exec replaced it
 * (`rm toolhost.config.json; echo '{…}' > toolhost.config.json`) with a config of its own,
 * which the host loads on its next reload or start: a model widening its own policy. A jail that
 * cannot hold a control path refuses to start instead, naming the link.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const NODE_MODULES = path.resolve(here, '../../../node_modules');
const PROBE = path.resolve(here, '../../fixtures/servers/probe-server.mjs');
const CONFIG = { builtins: { exec: { enabled: true } } };
const WIDER = '{"builtins":{"exec":{"enabled":true},"controlFiles":{"config":"write","plugins":"write"}}}';

let base: string;
let root: string;
let shared: string;
let host: ToolHost | undefined;

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), 'toolhost-control-links-')));
  root = path.join(base, 'project');
  shared = path.join(base, 'shared');
  await mkdir(path.join(root, 'plugins'), { recursive: true });
  await mkdir(path.join(shared, 'skills', 'good'), { recursive: true });
  await writeFile(
    path.join(shared, 'skills', 'good', 'SKILL.md'),
    '---\nname: good\ndescription: A skill\n---\nBody.\n',
  );
  await symlink(path.join(shared, 'skills'), path.join(root, 'skills'));
});
afterEach(async () => {
  await host?.close();
  host = undefined;
  await rm(base, { recursive: true, force: true });
});

async function linkedConfig(config: unknown): Promise<void> {
  await writeFile(path.join(shared, 'config.json'), JSON.stringify(config));
  await symlink(path.join(shared, 'config.json'), path.join(root, 'toolhost.config.json'));
}

const isLink = async (file: string) => (await lstat(file)).isSymbolicLink();

describe('a control path linked into the workspace', () => {
  it('is not replaced by exec: the link to the config and to skills/ stay, and nothing is planted', async () => {
    await linkedConfig(CONFIG);
    host = await createHost({ root, watch: false, cache: false });
    const { result } = await host.session().call('exec', {
      command: 'sh',
      args: [
        '-c',
        `rm toolhost.config.json; echo '${WIDER}' > toolhost.config.json; ` +
          'rm skills; mkdir -p skills/evil; printf -- "---\\nname: evil\\ndescription: x\\n---\\n" > skills/evil/SKILL.md',
      ],
    });
    expect(await isLink(path.join(root, 'toolhost.config.json'))).toBe(true);
    expect(await isLink(path.join(root, 'skills'))).toBe(true);
    expect(JSON.parse(await readFile(path.join(root, 'toolhost.config.json'), 'utf8'))).toEqual(CONFIG);
    expect(await readdir(path.join(root, 'skills'))).toEqual(['good']);
    // exec said why it did not run.
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/symbolic link/);
    expect(resultText(result)).not.toContain(base);
  });

  it('is not replaced by a stdio server granted the whole project to write: it does not start', async () => {
    host = await createHost({
      root,
      watch: false,
      cache: false,
      builtins: false,
      mcpServers: {
        probe: {
          command: process.execPath,
          args: [PROBE, path.join(NODE_MODULES, '@modelcontextprotocol', 'sdk')],
          sandbox: { fs: { read: [NODE_MODULES, path.dirname(PROBE)], write: ['.'] } },
        },
      } as never,
    });
    const status = host.mcpServers.find((s) => s.name === 'probe');
    if (status?.state === 'connected') {
      await host.session().call('mcp__probe__write', { path: path.join(root, 'skills'), text: 'x' });
    }
    expect(await isLink(path.join(root, 'skills'))).toBe(true);
    expect(status?.state).not.toBe('connected');
    expect(status?.reason).toMatch(/symbolic link/);
  });
});
