import { type InlineSandbox, internalsOf } from '@toolhost/host/internal';
import { describe, expect, it } from 'vitest';
import { withBurner } from './burner-process.js';
import { textOf, useHosts } from './project.js';

/**
 * Quick tools are entered synchronously once they proved quick; a sync entry that runs long sends
 * its tool back to the async path, so a CPU-heavy tool stalls its process once per version, never
 * past its CPU budget (the rule itself, short stalls included, is entry-modes.test.ts). Observed
 * as the order in which calls finish, not as timings.
 */
describe.each(['inline', 'process'] as const)('sync entries (%s sandbox)', (sandbox) => {
  const h = useHosts();

  it('a tool that turns heavy stalls a neighbour once at most, then runs beside it', async () => {
    const made = await h.project(['burner', 'healthy']);
    // The clock limit far away: the second heavy call below ends at its CPU budget, not by time.
    const host = await h.hostFor(made.root, {
      sandbox,
      plugins: { burner: { limits: { cpuMs: 1_000, timeoutMs: 120_000 } } },
    });
    const session = host.session();
    // Quick calls: the tool is promoted to sync entries.
    for (let i = 0; i < 3; i++)
      expect(textOf((await session.call('burn', { ms: 0 })).result)).toMatch(/^burned 0/);

    /** A heavy call and a neighbour started together: the order in which they are answered. */
    const race = async (heavyMs: number) => {
      const order: string[] = [];
      const heavy = session.call('burn', { ms: heavyMs }).then((o) => {
        order.push('heavy');
        return o;
      });
      const neighbour = session.call('healthy_echo', { text: 'x' }).then((o) => {
        order.push('neighbour');
        return o;
      });
      const [h, n] = await Promise.all([heavy, neighbour]);
      expect(textOf(n.result)).toBe('echo: x');
      return { order, heavy: h };
    };
    // However the first heavy call went (in inline mode its sync entry holds the host's thread),
    // it was answered, and it sent the tool to the async path.
    expect(textOf((await race(400)).heavy.result)).toMatch(/^burned 400 ms/);
    // The second burns until its CPU budget runs out, on the async path: the neighbour, which
    // needs milliseconds of CPU, is answered while it burns, however loaded the machine.
    const second = await race(600_000);
    expect(second.order).toEqual(['neighbour', 'heavy']);
    expect(second.heavy.status).toBe('limit-exceeded');
    expect(textOf(second.heavy.result)).toMatch(/cpuMs: 1000/);
  });

  it('a sync entry that spins forever ends at the CPU budget, and the plugin serves again', async () => {
    const made = await h.project(['burner']);
    const host = await h.hostFor(made.root, {
      sandbox,
      plugins: { burner: { limits: { cpuMs: 300, timeoutMs: 60_000 } } },
    });
    const session = host.session();
    for (let i = 0; i < 3; i++) await session.call('burn', { ms: 0 });
    const spun = await session.call('burn', { ms: 60_000 });
    expect(spun.result.isError).toBe(true);
    expect(spun.status).toBe('limit-exceeded');
    // Two guards may stop it, whichever is first on a loaded machine: the sync entry's own budget
    // ("ran synchronously past …") or the isolate's CPU watch ("ran past …"). Both say it alike.
    expect(textOf(spun.result)).toMatch(/past its CPU time limit \(cpuMs: 300\)/);
    expect(textOf((await session.call('burn', { ms: 0 })).result)).toMatch(/^burned 0/);
  });
});

describe('the executor process and sync entries', () => {
  it('never kills an executor whose sync entry is doing a plugin’s work within its CPU budget', async () => {
    await withBurner({ heartbeatMs: 200 }, async (call, sandbox) => {
      for (let i = 0; i < 3; i++) expect(await call(0, i)).toMatchObject({ kind: 'reply' });
      const generation = sandbox.generation;
      // 800 ms in one sync entry: four times the heartbeat, well within cpuMs.
      expect(await call(800, 9)).toMatchObject({ kind: 'reply', reply: { kind: 'ok' } });
      expect(sandbox.generation).toBe(generation);
    });
  });

  it('sends the answers of a read’s first quick calls before a heavy call later in that read has run', async () => {
    await withBurner({}, async (call) => {
      // Quick calls: the tool is promoted to sync entries.
      for (let i = 0; i < 3; i++) expect(await call(0, i)).toMatchObject({ kind: 'reply' });
      // One turn: 20 quick calls, then one that holds its sync entry for a second. The first is
      // written alone (none was in flight), the rest together, so the executor reads them in one
      // chunk with the heavy one last. Its answers to the first 16 of that chunk leave as they are
      // ready (channel.ts, the writer's groups); in one write at the end of the read they would
      // come with the heavy call's, a second later.
      let heavyDone = false;
      const quick = Array.from({ length: 20 }, (_, i) => call(0, 10 + i));
      const heavy = call(1_000, 100).then((outcome) => {
        heavyDone = true;
        return outcome;
      });
      const heavyDoneAtSecondAnswer = await quick[1]?.then(
        () => new Promise<boolean>((resolve) => setImmediate(() => resolve(heavyDone))),
      );
      expect(heavyDoneAtSecondAnswer).toBe(false);
      for (const outcome of await Promise.all(quick)) expect(outcome).toMatchObject({ kind: 'reply' });
      expect(await heavy).toMatchObject({ kind: 'reply', reply: { kind: 'ok' } });
    });
  });
});

describe('sync entries that reply within the entry', () => {
  const h = useHosts();

  it('sequential calls of a quick tool mostly finish inside their sync entry (inline)', async () => {
    const made = await h.project(['healthy']);
    const host = await h.hostFor(made.root, { sandbox: 'inline' });
    const session = host.session();
    // A caller that awaits each call and makes the next one at once: the next entry must not
    // start while the previous reply's callback still holds the isolate (it would then miss
    // its own reply, and so would every call after it).
    for (let i = 0; i < 300; i++) {
      expect(textOf((await session.call('healthy_echo', { text: `${i}` })).result)).toBe(`echo: ${i}`);
    }
    const sandbox = internalsOf(host).sandbox as InlineSandbox;
    const { inEntry, waited } = sandbox.replyStats();
    expect(inEntry + waited).toBe(300);
    // The first call, and a few after V8 recompiles the hot code, go the async way.
    expect(inEntry).toBeGreaterThan(200);
  });

  /**
   * 2,000 calls of a fresh host's inline plugin `fixture` by 64 callers from the first call on, each
   * making its next call as its last one ends: until the very end no call runs alone in the
   * isolate, which was the only way a tool got promoted before. Call `i` goes to `toolOf(i)`, which
   * answers `<word>: i`. Answers how many calls finished inside their sync entry.
   */
  async function crowdCalls(fixture: string, toolOf: (i: number) => [string, string]): Promise<number> {
    const made = await h.project([fixture]);
    const host = await h.hostFor(made.root, { sandbox: 'inline' });
    const session = host.session();
    const total = 2_000;
    let next = 0;
    const caller = async () => {
      while (next < total) {
        const i = next++;
        const [tool, word] = toolOf(i);
        expect(textOf((await session.call(tool, { text: `${i}` })).result)).toBe(`${word}: ${i}`);
      }
    };
    await Promise.all(Array.from({ length: 64 }, caller));
    const { inEntry, waited } = (internalsOf(host).sandbox as InlineSandbox).replyStats();
    expect(inEntry + waited).toBe(total);
    return inEntry;
  }

  it('a quick tool called by a crowd from its first call on takes sync entries without a lull (inline)', async () => {
    // Judged after CROWD_ENTRIES (32) entries; the 64 first calls all take async ones.
    expect(await crowdCalls('healthy', () => ['healthy_echo', 'echo'])).toBeGreaterThan(1_000);
  });

  it('two quick tools called in a mix by a crowd from their first calls on both take sync entries (inline)', async () => {
    const inEntry = await crowdCalls('pair', (i) =>
      i % 2 === 0 ? ['pair_first', 'first'] : ['pair_second', 'second'],
    );
    expect(inEntry).toBeGreaterThan(1_000);
  });

  it('concurrent calls of a quick tool keep to sync entries while an async entry ends (inline)', async () => {
    const made = await h.project(['pair']);
    const host = await h.hostFor(made.root, { sandbox: 'inline' });
    const session = host.session();
    for (let i = 0; i < 20; i++) await session.call('pair_first', { text: `${i}` });
    const sandbox = internalsOf(host).sandbox as InlineSandbox;
    const before = sandbox.replyStats();
    // pair_second has never run: its first call takes an async entry, and the calls of pair_first
    // made meanwhile wait for it to end instead of taking async entries too (which kept every
    // later call async for as long as calls kept coming).
    const calls = [
      session.call('pair_second', { text: 'x' }),
      ...Array.from({ length: 500 }, (_, i) => session.call('pair_first', { text: `${i}` })),
    ];
    const [second, ...firsts] = await Promise.all(calls);
    expect(second && textOf(second.result)).toBe('second: x');
    firsts.forEach((outcome, i) => {
      expect(textOf(outcome.result)).toBe(`first: ${i}`);
    });
    const after = sandbox.replyStats();
    expect(after.inEntry + after.waited - before.inEntry - before.waited).toBe(501);
    // Without the wait, none is (every call took an async entry). A collection or V8's tier-up
    // in a sync entry can still send a short probation (PROBATION_CALLS) down the async path.
    expect(after.inEntry - before.inEntry).toBeGreaterThan(250);
  });
});
