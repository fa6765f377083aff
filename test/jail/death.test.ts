import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { project, REPO } from '../cli/cli.js';

const HOST = pathToFileURL(path.join(REPO, 'packages/host/dist/index.js')).href;
const INTERNAL = pathToFileURL(path.join(REPO, 'packages/host/dist/internal.js')).href;

function alive(pid: number): boolean {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

describe('the jailed executor dies with the host', () => {
  it('even when it cannot notice (stopped), a host killed with SIGKILL leaves no executor behind', async () => {
    // The executor ends itself when its channel closes, but only while it runs: a stopped one (or
    // one whose main thread a plugin holds) never reads the close. The jail's death with its
    // parent ends it anyway.
    const { root, dispose } = await project(['healthy'], { builtins: false });
    let executor = 0;
    try {
      const script = `
        const { createHost } = await import(${JSON.stringify(HOST)});
        const { internalsOf } = await import(${JSON.stringify(INTERNAL)});
        const host = await createHost({ root: ${JSON.stringify(root)}, watch: false, cache: false });
        await host.session().call('healthy_echo', { text: 'x' });
        const { sandbox } = internalsOf(host);
        console.log(JSON.stringify({ executor: sandbox.executorPid, bwrap: sandbox.pid }));
        setInterval(() => {}, 1000);`;
      const child = spawn(process.execPath, ['--no-node-snapshot', '--input-type=module', '-e', script], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const line = await new Promise<string>((resolve) =>
        child.stdout.once('data', (d: Buffer) => resolve(String(d))),
      );
      const pids = JSON.parse(line) as { executor: number; bwrap: number };
      executor = pids.executor;
      process.kill(executor, 'SIGSTOP');
      child.kill('SIGKILL');
      await vi.waitFor(() => expect(alive(executor)).toBe(false), { timeout: 60_000 });
      await vi.waitFor(() => expect(alive(pids.bwrap)).toBe(false), { timeout: 60_000 });
    } finally {
      if (executor !== 0 && alive(executor)) process.kill(executor, 'SIGKILL');
      await dispose();
    }
  });
});
