import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_SANDBOX_LIMITS } from '@toolhost/host';
import { bundlePlugin, ProcessSandbox } from '@toolhost/host/internal';
import { afterEach, describe, expect, it, vi } from 'vitest';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/plugins');

describe('warming the process sandbox', () => {
  let sandbox: ProcessSandbox | undefined;
  afterEach(async () => {
    await sandbox?.close();
  });

  it('starts the executor before any request, and the describe that follows runs in it', async () => {
    sandbox = new ProcessSandbox();
    expect(sandbox.pid).toBeUndefined();
    sandbox.warm();
    // The process started (bubblewrap's, when jailed: the executor inside comes a moment later).
    const warmed = sandbox.pid;
    expect(warmed).toBeDefined();
    expect(existsSync(`/proc/${warmed}`)).toBe(true);
    // A second warm while it runs starts no other.
    sandbox.warm();
    expect(sandbox.generation).toBe(1);

    const built = await bundlePlugin(path.join(fixtures, 'healthy', 'index.ts'));
    if (!built.ok) throw new Error(built.error);
    const outcome = await sandbox.describe(built.code, 'null', DEFAULT_SANDBOX_LIMITS);
    expect(outcome).toMatchObject({ kind: 'reply', reply: { ok: true } });
    expect(sandbox.pid).toBe(warmed);
    expect(sandbox.generation).toBe(1);
  });

  it('retires a warmed executor that no request reaches once the isolates idle time has passed', async () => {
    // `toolhost serve` and `dev` warm the sandbox at every start: one the session never calls must
    // not keep its process for good.
    sandbox = new ProcessSandbox();
    sandbox.configureIsolates({ idleMs: 300, maxLive: 128 });
    sandbox.warm();
    const warmed = sandbox.pid;
    expect(warmed).toBeDefined();
    await vi.waitFor(() => expect(existsSync(`/proc/${warmed}`)).toBe(false), {
      timeout: 60_000,
      interval: 50,
    });
    // The next request starts another, as after any retirement.
    const built = await bundlePlugin(path.join(fixtures, 'healthy', 'index.ts'));
    if (!built.ok) throw new Error(built.error);
    const outcome = await sandbox.describe(built.code, 'null', DEFAULT_SANDBOX_LIMITS);
    expect(outcome).toMatchObject({ kind: 'reply', reply: { ok: true } });
    expect(sandbox.generation).toBe(2);
  });

  it('starts nothing once closed', async () => {
    sandbox = new ProcessSandbox();
    await sandbox.close();
    sandbox.warm();
    expect(sandbox.pid).toBeUndefined();
    expect(sandbox.generation).toBe(0);
  });
});
