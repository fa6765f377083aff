import { lookup } from 'node:dns/promises';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { executorPlacement, spawnExecutor } from '@toolhost/host/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const PROBE = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../fixtures/executors/jail-probe.mjs',
);

/** A variable of the host's environment that nothing jailed may see. */
const CANARY = 'TOOLHOST_JAIL_CANARY';

interface Attempt {
  readonly ok: boolean;
  readonly value?: unknown;
  readonly code?: string;
}

/** Runs the probe as the executor would run, in exactly the executor's jail, and returns what it found. */
function probe(job: Record<string, unknown>): Promise<Record<string, unknown>> {
  const child = spawnExecutor(PROBE, executorPlacement('required'), ['pipe']);
  const channel = child.stdio[3] as unknown as NodeJS.ReadWriteStream;
  channel.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    let text = '';
    channel.on('data', (chunk: string) => {
      text += chunk;
    });
    channel.on('end', () => {
      try {
        resolve(JSON.parse(text));
      } catch {
        reject(new Error(`the probe sent no result: ${JSON.stringify(text)}`));
      }
    });
    channel.write(`${JSON.stringify(job)}\n`);
  });
}

describe('the executor jail, tried from inside by a probe in exactly that jail', () => {
  let root: string;
  let homeFile: string;
  let server: Server;
  let connections = 0;
  let found: Record<string, unknown>;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'toolhost-jail-'));
    await writeFile(path.join(root, 'toolhost.config.json'), '{"plugins":{}}');
    homeFile = path.join(homedir(), `.toolhost-jail-probe-${process.pid}`);
    await writeFile(homeFile, 'secret in home');
    server = createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    process.env[CANARY] = 'must not be seen';
    try {
      found = await probe({
        configFile: path.join(root, 'toolhost.config.json'),
        homeFile,
        projectWrite: path.join(root, 'planted.txt'),
        port: (server.address() as { port: number }).port,
        // A name this machine resolves from /etc/hosts, with no network needed: the jail has neither.
        name: 'localhost',
        hostPid: process.pid,
      });
    } finally {
      delete process.env[CANARY];
    }
  });

  afterAll(async () => {
    server?.close();
    await rm(homeFile, { force: true });
    await rm(root, { recursive: true, force: true });
  });

  const attempt = (name: string) => found[name] as Attempt;

  it('cannot read the project config, a file in $HOME, /etc/shadow or /proc/1/environ', () => {
    for (const name of ['config', 'home', 'shadow', 'initEnviron', 'selfStatus']) {
      expect(attempt(name), name).toMatchObject({ ok: false, code: 'ENOENT' });
    }
  });

  it("sees nothing of the host's environment", () => {
    expect(found.env).not.toContain(CANARY);
    expect(found.env).not.toContain('HOME');
    expect(found.env).not.toContain('PATH');
  });

  it('cannot write outside its private /tmp, which it can write', () => {
    expect(attempt('writeRoot')).toMatchObject({ ok: false, code: 'EROFS' });
    expect(attempt('writeProject').ok).toBe(false);
    expect(attempt('writeTmp').ok).toBe(true);
  });

  it('cannot open a TCP connection to a loopback server of the host (the seccomp filter refuses the socket)', () => {
    expect(attempt('tcp')).toMatchObject({ ok: false, code: 'EAFNOSUPPORT' });
    expect(connections).toBe(0);
  });

  it('cannot resolve a name', async () => {
    await expect(lookup('localhost')).resolves.toBeDefined();
    expect(attempt('lookup').ok).toBe(false);
    expect(attempt('resolve4').ok).toBe(false);
  });

  it('cannot signal the host (its PID is not in the jail)', () => {
    expect(attempt('signalHost')).toMatchObject({ ok: false, code: 'ESRCH' });
  });

  it('cannot start a shell, and a second Node it starts is in the same jail', () => {
    expect(found.shell).toMatchObject({ error: 'ENOENT' });
    expect(found.shellOnPath).toMatchObject({ error: 'ENOENT' });
    expect(found.nodeChild).toMatchObject({ status: 1 });
    expect((found.nodeChild as { stdout: string }).stdout).not.toContain('read');
  });
});
