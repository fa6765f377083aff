/**
 * Plugin timers reach the host as sleeps, and what the host spends on them is not charged to the
 * plugin: a call's timers share one host wake-up at a time (their callbacks then run inside the
 * isolate, under its CPU limit), and an interval waits at least 4 ms between runs.
 */
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_SANDBOX_LIMITS } from '../../src/config/limits.js';
import type { CallHandlers } from '../../src/sandbox/isolate-pool.js';
import { IsolatePool } from '../../src/sandbox/isolate-pool.js';
import { loadPrelude } from '../../src/sandbox/prelude.js';
import { bundlePlugin } from '../../src/sources/plugins/bundle.js';
import { callRequest } from './call-request.js';

const ticker = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../../test/fixtures/plugins/ticker/index.ts',
);

/** Handlers that hold every sleep the isolate asks for until the test answers it. */
function heldSleeps() {
  const held: { ms: number; answer: () => void }[] = [];
  let onSleep: (() => void) | undefined;
  const handlers: CallHandlers = {
    log: () => {},
    progress: () => {},
    request: (capability, args) =>
      new Promise((resolve) => {
        if (capability !== 'sleep') return resolve(JSON.stringify({ ok: false, error: 'none here' }));
        held.push({
          ms: (JSON.parse(args) as { ms: number }).ms,
          answer: () => resolve('{"ok":true,"value":null}'),
        });
        onSleep?.();
      }),
  };
  /** Resolves once a sleep of `ms` is held. */
  const sleepOf = (ms: number) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (held.some((sleep) => sleep.ms === ms)) resolve();
      };
      onSleep = check;
      check();
    });
  return { handlers, held, sleepOf };
}

describe('plugin timers on the host', () => {
  const pool = new IsolatePool(loadPrelude);
  afterAll(() => pool.close());

  it("a call's 100 intervals of 1 ms ask the host for one wake-up of 4 ms, not for 100 sleeps of 1 ms", async () => {
    const built = await bundlePlugin(ticker);
    if (!built.ok) throw new Error(built.error);
    pool.load('ticker@1', built.code, DEFAULT_SANDBOX_LIMITS);
    const { handlers, held, sleepOf } = heldSleeps();
    const request = callRequest(1, 'tick', { n: 100, ms: 1 });
    const answer = pool.call('ticker@1', request, handlers);
    // The intervals are set before ctx.sleep(60000), in the same turn: all their sleeps are held by now.
    await sleepOf(60_000);
    expect(held.map((sleep) => sleep.ms)).toEqual([4, 60_000]);
    for (const sleep of held.splice(0)) sleep.answer();
    const outcome = await answer;
    expect(outcome).toMatchObject({ kind: 'reply', reply: { kind: 'ok' } });
  });
});
