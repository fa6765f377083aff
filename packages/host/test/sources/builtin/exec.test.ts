import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ExecOptions } from '../../../src/sources/builtin/index.js';
import { isRunning, makeCtx, makeSandbox, nodeScript, type Sandbox, textOf } from './helpers.js';

let sb: Sandbox;
beforeEach(async () => {
  sb = await makeSandbox();
  await fs.mkdir(path.join(sb.root, 'sub'));
});
afterEach(async () => {
  await sb.cleanup();
});

const exec = (input: unknown, options: ExecOptions = {}, ctx = makeCtx()) =>
  sb.call('exec', input, { exec: { enabled: true, ...options } }, ctx);

const structured = (result: { structuredContent?: Readonly<Record<string, unknown>> }) => {
  if (result.structuredContent === undefined) throw new Error('no structuredContent');
  return result.structuredContent;
};

describe('exec', () => {
  it('returns the exit code, stdout and stderr', async () => {
    const result = await exec(
      nodeScript("process.stdout.write('out'); process.stderr.write('err'); process.exitCode = 3"),
    );
    expect(textOf(result)).toBe('exit code: 3\n--- stdout ---\nout\n--- stderr ---\nerr');
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toEqual({
      exitCode: 3,
      signal: null,
      stdout: 'out',
      stderr: 'err',
      timedOut: false,
      truncated: false,
    });
  });

  it('passes arguments as they are, with no shell in between', async () => {
    const result = await exec({
      command: process.execPath,
      args: ['-e', 'process.stdout.write(JSON.stringify(process.argv.slice(1)))', '$HOME', '*', 'a;b', '`x`'],
    });
    expect(JSON.parse(String(structured(result).stdout))).toEqual(['$HOME', '*', 'a;b', '`x`']);
  });

  it('runs in the root by default, or in a cwd inside it', async () => {
    const rootReal = await fs.realpath(sb.root);
    const cwdOf = async (cwd?: string) =>
      structured(await exec(nodeScript('process.stdout.write(process.cwd())', cwd))).stdout;
    expect(await cwdOf()).toBe(rootReal);
    expect(await cwdOf('sub')).toBe(path.join(rootReal, 'sub'));
  });

  it('refuses a cwd that is not a directory', async () => {
    await fs.writeFile(path.join(sb.root, 'file.txt'), '');
    await expect(exec(nodeScript('', 'file.txt'))).rejects.toThrow('cwd "file.txt" is not a directory');
    await expect(exec(nodeScript('', 'missing'))).rejects.toThrow('path "missing" does not exist');
  });

  it('kills the process on timeout and says so', async () => {
    // Unjailed, so the pid it prints is the host's (in the jail it is its own namespace's).
    const result = await exec(nodeScript('console.log(process.pid); setInterval(() => {}, 1000)'), {
      timeoutMs: 300,
      sandbox: false,
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^timed out after 300 ms; the process was killed/);
    const { timedOut, stdout } = structured(result);
    expect(timedOut).toBe(true);
    expect(isRunning(Number.parseInt(String(stdout), 10))).toBe(false);
  });

  it('caps stdout and stderr together and notes what was dropped', async () => {
    const result = await exec(
      nodeScript("process.stdout.write('x'.repeat(1000)); process.stderr.write('y'.repeat(50))"),
      { maxOutputBytes: 100 },
    );
    const { stdout, stderr, truncated } = structured(result);
    expect(String(stdout).length + String(stderr).length).toBe(100);
    expect(truncated).toBe(true);
    expect(textOf(result)).toContain('[output truncated: 950 bytes past the 100-byte cap were dropped]');
  });

  it('kills the process when the call is aborted', async () => {
    const controller = new AbortController();
    let pid = 0;
    const ctx = makeCtx({
      signal: controller.signal,
      log: {
        debug: (_message, data) => {
          pid = (data as { pid: number }).pid;
          controller.abort();
        },
        info: () => {},
        warn: () => {},
        error: () => {},
      },
    });
    await expect(exec(nodeScript('setInterval(() => {}, 1000)'), {}, ctx)).rejects.toThrow(
      'was cancelled; the process was killed',
    );
    expect(pid).toBeGreaterThan(0);
    expect(isRunning(pid)).toBe(false);
  });

  it('starts nothing when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('cancelled before start'));
    let started = false;
    const ctx = makeCtx({
      signal: controller.signal,
      log: {
        debug: () => {
          started = true;
        },
        info: () => {},
        warn: () => {},
        error: () => {},
      },
    });
    const tool = sb.tools({ exec: { enabled: true } }).get('exec');
    if (tool === undefined) throw new Error('exec missing');
    await expect(tool.executor.run(nodeScript(''), ctx)).rejects.toThrow('cancelled before start');
    expect(started).toBe(false);
  });

  it('runs only allowed commands when allowedCommands is given', async () => {
    const options = { allowedCommands: [process.execPath] };
    await expect(exec({ command: 'ls' }, options)).rejects.toThrow(
      `command "ls" is not allowed; allowed commands: ${process.execPath}`,
    );
    expect(structured(await exec(nodeScript("process.stdout.write('ok')"), options)).stdout).toBe('ok');
  });

  it('says when the command does not exist', async () => {
    await expect(exec({ command: 'toolhost-no-such-command-xyz' })).rejects.toThrow(
      'command "toolhost-no-such-command-xyz" was not found',
    );
  });
});
