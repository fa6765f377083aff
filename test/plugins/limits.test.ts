import type { ToolHost } from '@toolhost/host';
import { internalsOf } from '@toolhost/host/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostFor, project, textOf } from './project.js';

const limits = { timeoutMs: 1_500, cpuMs: 1_000, memoryMb: 32, maxResultChars: 200_000 };

/** Each hostile tool, and what its error result must say. */
const cases: [tool: string, expected: RegExp][] = [
  ['sync_loop', /time limit \(timeoutMs: 1500\)|cpuMs: 1000/],
  ['async_loop', /time limit \(timeoutMs: 1500\)|cpuMs: 1000/],
  ['never_settles', /did not finish within its time limit \(timeoutMs: 1500\)/],
  // Usually the heap limit; on a loaded machine the CPU budget or the time limit can run out first.
  ['memory_bomb', /memory limit \(memoryMb: 32\)|cpuMs: 1000|time limit \(timeoutMs: 1500\)/],
  ['wasm_memory', /WebAssembly is not defined/],
  ['deep_recursion', /Maximum call stack size exceeded/],
  ['huge_result', /over the limit maxResultChars \(200000/],
  ['looping_getter', /time limit \(timeoutMs: 1500\)|cpuMs: 1000/],
  ['thrown_proxy', /time limit \(timeoutMs: 1500\)|cpuMs: 1000|unreadable error/],
  ['looping_message', /time limit \(timeoutMs: 1500\)|cpuMs: 1000|without a readable message/],
];

describe.each(['inline', 'process'] as const)('limits (%s sandbox)', (sandbox) => {
  let host: ToolHost;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    const made = await project(['hostile', 'healthy']);
    cleanup = made.cleanup;
    host = await hostFor(made.root, { sandbox, plugins: { hostile: { limits } } });
  });

  afterAll(async () => {
    await host.close();
    await cleanup();
  });

  it.each(cases)('%s: an is_error naming the limit, then the plugin serves again', async (tool, expected) => {
    const session = host.session();
    // Both calls end by themselves (a hang is caught by the test's timeout, not by a clock here).
    const [hostile, healthy] = await Promise.all([
      session.call(tool, {}),
      session.call('healthy_echo', { text: 'unaffected' }),
    ]);
    expect(hostile.result.isError).toBe(true);
    expect(textOf(hostile.result)).toMatch(expected);
    expect(textOf(healthy.result)).toBe('echo: unaffected');
    const next = await session.call('ok', {});
    expect(textOf(next.result)).toBe('fine');
  });

  it('a breach names the config key that raises the limit', async () => {
    const session = host.session();
    const [late, huge] = await Promise.all([
      session.call('never_settles', {}),
      session.call('huge_result', {}),
    ]);
    expect(textOf(late.result)).toContain(
      'raise plugins.hostile.limits.timeoutMs in the config to allow more',
    );
    expect(textOf(huge.result)).toContain(
      'raise plugins.hostile.limits.maxResultChars in the config to allow more',
    );
  });

  it('leaves no isolate behind a breach beyond the ones serving', async () => {
    expect(await internalsOf(host).sandbox?.isolateCount()).toBeLessThanOrEqual(2);
  });
});
