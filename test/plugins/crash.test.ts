import type { ToolHost } from '@toolhost/host';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostFor, project, textOf } from './project.js';

// The out-of-memory cases of isolated-vm #457 and #527 abort V8 itself. In the default sandbox
// mode they kill only the executor process; the host keeps serving.
describe('a plugin that crashes V8', () => {
  let host: ToolHost;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    const made = await project(['crasher', 'healthy']);
    cleanup = made.cleanup;
    host = await hostFor(made.root, {
      sandbox: 'process',
      // 8 s: crash_keys aborts V8 within about 1 s even in the full suite; crash_array, when V8
      // spins in last-resort GCs instead (below), holds a CPU until this limit ends the call, and
      // at 20 s that was the longest test of the suite and a CPU taken from every file beside it.
      plugins: { crasher: { limits: { memoryMb: 64, timeoutMs: 8_000 } } },
    });
  });

  afterAll(async () => {
    await host.close();
    await cleanup();
  });

  it.each([
    // #457 aborts V8 every time here; #527 sometimes ends as a clean memory-limit breach instead,
    // and in the full suite (two workers on two CPUs) V8 often spins in last-resort GCs near the
    // heap limit until the plugin's time limit ends the call (alone it ends in about 0.4 s): each
    // is the call failing alone, said as the host saw it.
    ['crash_keys', /the executor process died \(signal SIGABRT\)/],
    ['crash_array', /executor process died|memory limit|did not finish within its time limit/],
  ] as const)('%s fails only its call; the host serves on', async (tool, expected) => {
    const session = host.session();
    const outcome = await session.call(tool, {});
    expect(outcome.result.isError).toBe(true);
    expect(textOf(outcome.result)).toMatch(expected);
    const healthy = await session.call('healthy_echo', { text: 'alive' });
    expect(textOf(healthy.result)).toBe('echo: alive');
  });

  it('quarantines a plugin that keeps crashing the executor', async () => {
    const session = host.session();
    for (let i = 0; i < 3; i++) await session.call('crash_keys', {});
    const outcome = await session.call('crash_keys', {});
    expect(textOf(outcome.result)).toMatch(
      /plugin "crasher" is quarantined: it crashed the executor process \d+ times/,
    );
    expect(textOf((await session.call('healthy_echo', { text: 'still' })).result)).toBe('echo: still');
  });
});
