/**
 * Plugin isolates start from a V8 snapshot of the prelude. A snapshot holds no host function, so
 * the host attaches the bridge right after making each context, through a one-shot entry the
 * runtime removes; V8 puts WebAssembly back into every context it makes from a snapshot, so that
 * same step deletes it again; and whatever was drawn while snapshotting would repeat in every
 * isolate. Plugin code, in whichever sandbox holds it, must see none of that.
 */
import { describe, expect, it } from 'vitest';
import { attackPlugin, expectHealthy, HEALTHY_SOURCE, reportOf, useHarness } from './helpers.js';

const PROBE = `({
  setup: Object.getOwnPropertyNames(globalThis).filter((n) => /toolhost|bridge|attach|ivm/i.test(n)),
  attach: typeof (globalThis as any).__toolhost_attach,
  bridge: typeof (globalThis as any).__toolhost_bridge,
  wasm: [typeof (globalThis as any).WebAssembly, (0, eval)('typeof WebAssembly'), new Function('return typeof WebAssembly')(),
    Object.getOwnPropertyDescriptor(globalThis, 'WebAssembly') === undefined],
})`;

const DRAW = `
  const schema = z.object({ n: z.number().int().min(1), tags: z.array(z.string()).default([]) });
  const bad = schema.safeParse({ n: 0.5 });
  return JSON.stringify({ atLoad, atCall: ${PROBE}, random: [Math.random(), Math.random()], uuid: crypto.randomUUID(),
    parsed: schema.parse({ n: 2 }), issues: bad.success ? [] : bad.error.issues.map((i) => i.path.join('.') + ': ' + i.code) });`;

describe('plugin isolates made from the prelude snapshot', () => {
  const h = useHarness();

  it('leave plugin code no WebAssembly, no bridge, no attach entry, and their own randomness and zod', async () => {
    const { host, session } = await h.start({
      plugins: {
        a: attackPlugin('a', DRAW, { pre: `const atLoad = ${PROBE};` }),
        b: attackPlugin('b', DRAW, { pre: `const atLoad = ${PROBE};` }).replace(
          "name: 'attack'",
          "name: 'attack_b'",
        ),
        healthy: HEALTHY_SOURCE,
      },
    });
    type Report = {
      atLoad: Record<string, unknown>;
      atCall: Record<string, unknown>;
      random: number[];
      uuid: string;
      parsed: unknown;
      issues: string[];
    };
    const a = reportOf<Report>(await session.call('attack', {}));
    const b = reportOf<Report>(await session.call('attack_b', {}));
    // The isolates did start from the snapshot (not the code-cache fallback). The preludes are
    // the process's: another file of the same worker may have made the full one too.
    expect((await host.isolates()).preludes?.base).toBe('snapshot');
    for (const report of [a, b]) {
      // At load only the one-shot registration hook is there; in a call, nothing.
      expect(report.atLoad).toEqual({
        setup: ['__toolhost_register'],
        attach: 'undefined',
        bridge: 'undefined',
        wasm: ['undefined', 'undefined', 'undefined', true],
      });
      expect(report.atCall).toEqual({ ...report.atLoad, setup: [] });
      expect(report.parsed).toEqual({ n: 2, tags: [] });
      expect(report.issues).toEqual(['n: invalid_type']);
    }
    expect(new Set([...a.random, ...b.random]).size).toBe(4);
    expect(a.uuid).not.toBe(b.uuid);
    await expectHealthy(session);
  });
});
