import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, cleanEnv, project, StreamWatch, serveOverStdio } from './cli.js';

/** The live children of `pid` (from /proc), with their command lines. */
function childrenOf(pid: number): { pid: number; cmdline: string }[] {
  const found: { pid: number; cmdline: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(ppid) !== pid || state === 'Z') continue;
      found.push({ pid: Number(entry), cmdline: readFileSync(`/proc/${entry}/cmdline`, 'utf8') });
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/**
 * `toolhost serve` on a project of `plugins`, connected with the real SDK client over stdio;
 * `sandbox`: the flags that choose the sandbox (none: the default).
 */
async function connect(plugins: string[], config: unknown, sandbox: string[] = ['--sandbox', 'inline']) {
  const { root, dispose } = await project(plugins, config);
  const { transport, stderr } = serveOverStdio(root, sandbox);
  const client = new Client({ name: 'serve-supervised-test', version: '1.0.0' });
  const logs: string[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    logs.push(String(n.params.data));
  });
  await client.connect(transport);
  cleanups.push(async () => {
    await client.close();
    await dispose();
  });
  const supervisor = transport.pid ?? 0;
  return { client, stderr, supervisor, logs };
}

const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text;

describe('toolhost serve over stdio, isolates in a supervised serve process (--sandbox inline)', () => {
  it('calls a plugin tool with the isolate in the serve process: no executor process, one serve child', async () => {
    const { client, supervisor, stderr } = await connect(['healthy'], { builtins: false });
    const result = await client.callTool({ name: 'healthy_echo', arguments: { text: 'no double hop' } });
    expect(text(result)).toBe('echo: no double hop');
    const [serve, ...others] = childrenOf(supervisor);
    expect(others).toEqual([]);
    expect(serve?.cmdline).toContain('serve');
    expect(childrenOf(serve?.pid ?? 0).filter((c) => c.cmdline.includes('executor-main'))).toEqual([]);
    await stderr.waitFor(/plugin isolates in this supervised process/);
  });

  it('a plugin that makes V8 abort: its call fails at once, the same connection serves other tools after the restart, and the third crash quarantines it', async () => {
    const { client, stderr, supervisor, logs } = await connect(['healthy', 'crasher'], {
      builtins: false,
      plugins: { crasher: { limits: { memoryMb: 16, timeoutMs: 60_000, cpuMs: 60_000 } } },
    });
    const servePids = new Set<number>();
    for (let crash = 1; crash <= 3; crash++) {
      servePids.add(childrenOf(supervisor)[0]?.pid ?? 0);
      await expect(client.callTool({ name: 'crash_keys', arguments: {} })).rejects.toThrow(
        /^MCP error -32603: toolhost serve crashed: the serve process died \(signal SIGABRT\) while this request was running \(plugins running: crasher\); the server restarts and serves again: call again$/,
      );
      await stderr.waitFor(new RegExp(`Restarting it in \\d+ ms \\(restart ${crash}\\)`));
      // No new initialize: the SDK server of the new process answers the client's next call.
      const after = await client.callTool({
        name: 'healthy_echo',
        arguments: { text: `after crash ${crash}` },
      });
      expect(text(after)).toBe(`echo: after crash ${crash}`);
    }
    servePids.add(childrenOf(supervisor)[0]?.pid ?? 0);
    expect(servePids.size).toBe(4);
    expect(stderr.text).toMatch(
      /the serve process died \(signal SIGABRT\) while plugin "crasher" ran; its 1 request\(s\) in flight were answered with an error/,
    );
    expect(logs[0]).toMatch(/toolhost serve restarted after a crash/);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['healthy_echo']);
    const refused = client.callTool({ name: 'crash_keys', arguments: {} });
    await expect(refused).rejects.toThrow(/plugin "crasher" is quarantined/);
  }, 90_000);

  it('a crash inside a sync entry ends the serve process at once: every request in flight gets its error, and the restarted process serves the next call', async () => {
    const { client, stderr, supervisor } = await connect(['healthy', 'synccrasher', 'waits'], {
      builtins: false,
      plugins: { synccrasher: { limits: { memoryMb: 16, timeoutMs: 60_000, cpuMs: 60_000 } } },
    });
    const crashed = childrenOf(supervisor)[0]?.pid ?? 0;
    // Quick calls first: the tool goes to sync entries, on the serve process's main thread. (A
    // catastrophic-error handler there would wait for that thread forever: no answer for 60 s.)
    for (let i = 0; i < 5; i++) {
      expect(text(await client.callTool({ name: 'crash_when', arguments: { crash: false } }))).toBe('quick');
    }
    // A call that never settles, in flight when the crash comes; the echo after it proves it was read.
    const waiting = client.callTool({ name: 'wait_for_abort', arguments: {} });
    const waitingFailed = expect(waiting).rejects.toThrow(
      /^MCP error -32603: toolhost serve crashed: the serve process died \(signal SIGABRT\) while this request was running \(plugins running: (waits, synccrasher|synccrasher, waits)\); the server restarts and serves again: call again$/,
    );
    expect(text(await client.callTool({ name: 'healthy_echo', arguments: { text: 'read' } }))).toBe(
      'echo: read',
    );
    await expect(client.callTool({ name: 'crash_when', arguments: { crash: true } })).rejects.toThrow(
      /^MCP error -32603: toolhost serve crashed: the serve process died \(signal SIGABRT\) while this request was running \(plugins running: (waits, synccrasher|synccrasher, waits)\)/,
    );
    await waitingFailed;
    expect(isAlive(crashed)).toBe(false);
    await stderr.waitFor(
      /its 2 request\(s\) in flight were answered with an error\. Restarting it in \d+ ms \(restart 1\)/,
    );
    expect(text(await client.callTool({ name: 'crash_when', arguments: { crash: false } }))).toBe('quick');
    expect(childrenOf(supervisor).map((c) => c.pid)).not.toContain(crashed);
  }, 60_000);

  it('ends cleanly when the client closes stdin: exit code 0, and the serve child is gone', async () => {
    const { root, dispose } = await project(['healthy'], { builtins: false });
    cleanups.push(dispose);
    const child = spawn(
      process.execPath,
      [CLI, 'serve', '--no-watch', '--sandbox', 'inline', '--root', root],
      {
        env: cleanEnv(),
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.once('exit', (code, signal) => resolve([code, signal])),
    );
    const stderr = new StreamWatch('toolhost serve (stderr)', child.stderr);
    await stderr.waitFor(/serving 1 tools over MCP stdio/);
    const serve = childrenOf(child.pid ?? 0)[0]?.pid;
    expect(serve).toBeDefined();
    child.stdin.end();
    expect(await exited).toEqual([0, null]);
    expect(isAlive(serve ?? 0)).toBe(false);
    expect(stderr.text).not.toMatch(/Restarting/);
  });
});
