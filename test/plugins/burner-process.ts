import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_SANDBOX_LIMITS } from '@toolhost/host';
import { bundlePlugin, ProcessSandbox, type ProcessSandboxOptions } from '@toolhost/host/internal';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/plugins');

/**
 * The burner plugin loaded straight into a process sandbox (no host): `call(ms, n)` burns `ms` in
 * call `c<n>`. Its calls made in one turn reach the executor in one write (the first of them, sent
 * while none was in flight, in one of its own).
 */
export async function burnerInProcess(sandbox: ProcessSandbox) {
  const built = await bundlePlugin(path.join(fixtures, 'burner', 'index.ts'));
  if (!built.ok) throw new Error(built.error);
  const limits = { ...DEFAULT_SANDBOX_LIMITS, cpuMs: 5_000, timeoutMs: 10_000 };
  const version = sandbox.load('burner', built.code, limits);
  const sinks = { log: () => {}, progress: () => {} };
  return (ms: number, n: number) =>
    sandbox.call(
      'burner',
      version,
      {
        callId: `c${n}`,
        toolName: 'burn',
        toolUseId: 't',
        sessionId: 's',
        input: { ms },
        config: null,
        env: {},
        envGranted: [],
        maxReplyChars: 10_000,
      },
      async () => null,
      sinks,
      new AbortController().signal,
    );
}

/** A process sandbox made with `options` and the burner loaded in it, closed after `use`, whatever it did. */
export async function withBurner(
  options: ProcessSandboxOptions,
  use: (call: Awaited<ReturnType<typeof burnerInProcess>>, sandbox: ProcessSandbox) => Promise<void>,
): Promise<void> {
  const sandbox = new ProcessSandbox(options);
  try {
    await use(await burnerInProcess(sandbox), sandbox);
  } finally {
    await sandbox.close();
  }
}
