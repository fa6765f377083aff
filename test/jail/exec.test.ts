import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import * as path from 'node:path';
import { createHost, type ToolHost as Host, resultText } from '@toolhost/host';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

/** A variable of the host's environment that exec's jail must not pass on unless granted. */
const CANARY = 'TOOLHOST_EXEC_CANARY';
const CONFIG = { builtins: { exec: { enabled: true } } };

let root: string;
let host: Host | undefined;

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'toolhost-exec-jail-'));
  await mkdir(path.join(root, 'plugins', 'kept'), { recursive: true });
  await mkdir(path.join(root, 'skills'));
  await writeFile(path.join(root, 'plugins', 'kept', 'index.ts'), '// the original\n');
  await writeFile(path.join(root, 'skills', 'SKILL.md'), 'original\n');
});
afterEach(async () => {
  await host?.close();
  host = undefined;
  await rm(root, { recursive: true, force: true });
});

async function withConfig(config: unknown): Promise<Host> {
  await writeFile(path.join(root, 'toolhost.config.json'), JSON.stringify(config));
  host = await createHost({ root, watch: false, cache: false });
  return host;
}

async function sh(script: string): Promise<{ text: string; stdout: string; stderr: string }> {
  if (host === undefined) throw new Error('no host');
  const { result } = await host.session().call('exec', { command: 'sh', args: ['-c', script] });
  const structured = result.structuredContent as { stdout: string; stderr: string };
  return { text: resultText(result), stdout: structured.stdout, stderr: structured.stderr };
}

/** Everything under the root, with contents, to compare before and after. */
async function snapshot(dir = root): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    const full = path.join(entry.parentPath, entry.name);
    out[path.relative(root, full)] = entry.isFile()
      ? await readFile(full, 'utf8')
      : `<${entry.isDirectory() ? 'dir' : 'other'}>`;
  }
  return out;
}

const controlFiles = (all: Record<string, string>) =>
  Object.fromEntries(
    Object.entries(all).filter(([name]) => /^(toolhost\.config\.json|plugins|skills)/.test(name)),
  );

describe('exec in its default jail', () => {
  it('cannot change toolhost.config.json, plugins/ or skills/: directly, through a shell it starts, a symlink or a hard link', async () => {
    await withConfig(CONFIG);
    const before = controlFiles(await snapshot());
    const { text } = await sh(
      [
        'echo "{}" > toolhost.config.json',
        'echo planted > plugins/kept/index.ts',
        'mkdir plugins/evil; echo planted > plugins/evil/index.ts',
        'echo planted > skills/SKILL.md',
        // a shell the program starts, and a program that shell starts
        "sh -c \"rm -rf skills/SKILL.md; node -e \\\"require('fs').writeFileSync('plugins/kept/index.ts', 'x')\\\"\"",
        // a symlink made in the workspace, written through
        'ln -s plugins via-link; echo planted > via-link/kept/index.ts',
        'ln -s toolhost.config.json config-link; echo planted > config-link',
        // a hard link to the config, then written
        'ln toolhost.config.json config-hard',
        // the folders renamed away and replaced
        'mv plugins plugins-old; mv skills skills-old; mv toolhost.config.json moved.json',
        'true',
      ].join('\n'),
    );
    expect(controlFiles(await snapshot())).toEqual(before);
    // The hard link was refused (another mount), not made.
    await expect(readFile(path.join(root, 'config-hard'))).rejects.toThrow();
    // Each refusal names what was refused and the key that governs it.
    expect(text).toContain('--- jail ---');
    expect(text).toContain(
      'the jail refused writing toolhost.config.json (the host config file: hidden from exec and read-only unless builtins.controlFiles.config is "read" or "write")',
    );
    expect(text).toContain(
      'the jail refused writing plugins/kept/index.ts (the plugins folder: read-only for exec unless builtins.controlFiles.plugins is "write")',
    );
  });

  it('does not show the config file (it may hold secrets) unless builtins.controlFiles.config opens it', async () => {
    await withConfig({ ...CONFIG, mcpServers: { s: { command: 'x', env: { TOKEN: 'secret-token' } } } });
    expect((await sh('cat toolhost.config.json; echo "[end]"')).stdout).toBe('[end]\n');
    await host?.close();
    await withConfig({ builtins: { exec: { enabled: true }, controlFiles: { config: 'read' } } });
    expect((await sh('cat toolhost.config.json')).stdout).toContain('"controlFiles"');
    expect((await sh('echo "{}" > toolhost.config.json')).stderr).not.toBe('');
  });

  it('holds a control path that does not exist yet, so the program cannot create it', async () => {
    await rm(path.join(root, 'skills'), { recursive: true });
    await withConfig(CONFIG);
    await sh('mkdir -p skills/planted && echo x > skills/planted/SKILL.md');
    expect(await readdir(path.join(root, 'skills'))).toEqual([]);
  });

  it('works normally inside the workspace: files, folders, renames, a shell, node', async () => {
    await withConfig(CONFIG);
    const { stdout } = await sh(
      [
        'mkdir -p build/out && echo one > build/out/a.txt',
        'mv build/out/a.txt build/b.txt && cat build/b.txt',
        'echo top > top.txt && mv top.txt top2.txt && rm top2.txt',
        "node -e \"require('fs').writeFileSync('n.txt', 'from node\\n')\" && cat n.txt",
        'echo tmp > /tmp/x && cat /tmp/x',
        'pwd',
      ].join('\n'),
    );
    expect(stdout).toBe(`one\nfrom node\ntmp\n${await realRoot()}\n`);
    expect(await readFile(path.join(root, 'build', 'b.txt'), 'utf8')).toBe('one\n');
  });

  it('writes nothing outside the workspace, saying which key would allow it', async () => {
    // Not under /tmp: the jail's /tmp is its own.
    const outside = await mkdtemp(path.join(homedir(), '.toolhost-exec-outside-'));
    try {
      await withConfig(CONFIG);
      const { text } = await sh(`echo x > ${outside}/f.txt`);
      await expect(readFile(path.join(outside, 'f.txt'))).rejects.toThrow();
      expect(text).toContain(
        `the jail refused writing ${tilde(outside)}/f.txt (outside the workspace, which is all exec may write); add ${JSON.stringify(tilde(outside))} to builtins.exec.sandbox.fs.write to allow it`,
      );
      await host?.close();
      await withConfig({ builtins: { exec: { enabled: true, sandbox: { fs: { write: [outside] } } } } });
      await sh(`echo x > ${outside}/f.txt`);
      expect(await readFile(path.join(outside, 'f.txt'), 'utf8')).toBe('x\n');
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it("gets a minimal environment: none of the host's variables but those it needs and those granted", async () => {
    process.env[CANARY] = 'host secret';
    try {
      await withConfig(CONFIG);
      const names = (await sh('env')).stdout
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => line.split('=')[0]);
      expect(names).not.toContain(CANARY);
      expect(
        names.every((name) =>
          /^(PATH|HOME|USER|LOGNAME|SHELL|TERM|LANG|LC_ALL|TZ|TMPDIR|PWD|SHLVL|_|OLDPWD)$/.test(name ?? ''),
        ),
      ).toBe(true);
      await host?.close();
      await withConfig({ builtins: { exec: { enabled: true, sandbox: { env: [CANARY] } } } });
      expect((await sh(`echo "$${CANARY}"`)).stdout).toBe('host secret\n');
    } finally {
      delete process.env[CANARY];
    }
  });

  it('sandbox: false runs programs unjailed, on purpose', async () => {
    await withConfig({ builtins: { exec: { enabled: true, sandbox: false } } });
    await sh('echo planted > skills/SKILL.md');
    expect(await readFile(path.join(root, 'skills', 'SKILL.md'), 'utf8')).toBe('planted\n');
  });
});

describe('exec and the network', () => {
  let server: Server;
  let port = 0;
  let connections = 0;
  beforeAll(async () => {
    server = createServer((socket) => {
      connections += 1;
      socket.end('HTTP/1.1 200 OK\r\ncontent-length: 5\r\nconnection: close\r\n\r\nhello');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const fetchScript = (url: string) =>
    `node -e "fetch('${url}').then(r => r.text()).then(t => console.log('got', t), e => console.log('failed', String(e.cause?.code ?? e.cause ?? e)))"`;

  it('reaches no loopback server of the host, nor any other, with no net grant', async () => {
    await withConfig(CONFIG);
    connections = 0;
    const { stdout, text } = await sh(
      `${fetchScript(`http://127.0.0.1:${port}/`)}; ${fetchScript('http://example.com/')}`,
    );
    expect(stdout).toMatch(/^failed .+\nfailed .+\n$/);
    expect(connections).toBe(0);
    expect(text).toContain(
      'exec runs without a network: its jail connects only to hosts builtins.exec.sandbox.net grants',
    );
  });
});

async function realRoot(): Promise<string> {
  const { realpath } = await import('node:fs/promises');
  return realpath(root);
}

/** A path in the home folder as refusals write it (no more of the host's layout than needed). */
function tilde(file: string): string {
  return `~/${path.relative(homedir(), file)}`;
}
