import { ConfigError } from '@toolhost/host';
import { defaultPollMicros, PROBE_EVERY } from '@toolhost/host/internal';
import { describe, expect, it } from 'vitest';
import { withBurner } from './burner-process.js';
import { useHosts } from './project.js';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/**
 * While a call to a process-sandbox plugin is in flight the host polls for its answer, and after
 * an answer the executor polls for the next request, each for `sandbox.pollMicros` (util/hot-loop.ts):
 * a sequential call then wakes no sleeping process. What it buys is time (bench/call-path.mjs,
 * bench/boundary.mjs); what is checked here is that both processes poll as configured, and stop.
 */
describe('polling between the host and the executor', () => {
  const h = useHosts();

  it('both processes poll with a window, and the host stops once no call is in flight', async () => {
    await withBurner({ pollMicros: 10_000 }, async (call, sandbox) => {
      for (let i = 0; i < 5; i++) expect(await call(0, i)).toMatchObject({ kind: 'reply' });
      // Still polling once the executor's start and the first calls are behind it. On a loaded
      // machine (a full test run on two CPUs) answers come late and the gate may stand polling
      // down for good reason; it still probes one wait in PROBE_EVERY, so within three times that
      // many calls the host polls again (the gate itself: util/hot-loop.test.ts, on a fake clock).
      const early = sandbox.pollTurns;
      for (let i = 5; i < 5 + 3 * PROBE_EVERY && sandbox.pollTurns === early; i++) {
        expect(await call(0, i)).toMatchObject({ kind: 'reply' });
      }
      expect(sandbox.pollTurns).toBeGreaterThan(early);
      // Nothing in flight: the turn pending now is its last.
      await nextTurn();
      const turns = sandbox.pollTurns;
      await nextTurn();
      await nextTurn();
      expect(sandbox.pollTurns).toBe(turns);
      const stats = await sandbox.isolateStats();
      expect(stats.polling?.micros).toBe(10_000);
      expect(stats.polling?.turns).toBeGreaterThan(0);
    });
  });

  it('with a window of 0 neither process polls', async () => {
    await withBurner({ pollMicros: 0 }, async (call, sandbox) => {
      for (let i = 0; i < 20; i++) expect(await call(0, i)).toMatchObject({ kind: 'reply' });
      expect(sandbox.pollTurns).toBe(0);
      expect((await sandbox.isolateStats()).polling).toEqual({ micros: 0, turns: 0 });
    });
  });

  it('the window is sandbox.pollMicros in the config, the machine’s default without it', async () => {
    const made = await h.project(['healthy']);
    const configured = await h.hostFor(made.root, { sandbox: { mode: 'process', pollMicros: 0 } });
    expect((await configured.session().call('healthy_echo', { text: 'x' })).result.isError).toBeFalsy();
    expect((await configured.isolates()).polling).toEqual({ micros: 0, turns: 0 });
    const byDefault = await h.hostFor(made.root, { sandbox: 'process' });
    expect((await byDefault.session().call('healthy_echo', { text: 'x' })).result.isError).toBeFalsy();
    expect((await byDefault.isolates()).polling?.micros).toBe(defaultPollMicros());
  });

  it('refuses a window that is not a whole number of microseconds from 0, naming the key', async () => {
    const made = await h.project(['healthy']);
    for (const pollMicros of [-1, 2.5]) {
      const refused = h.hostFor(made.root, { sandbox: { mode: 'process', pollMicros } });
      await expect(refused).rejects.toBeInstanceOf(ConfigError);
      await expect(refused).rejects.toThrow(/sandbox\.pollMicros/);
    }
  });
});
