import type { AvailabilityExpression } from '@toolhost/plugin-sdk';
import { allOf, anyOf, auth, config, context, env, pluginEnabled } from '@toolhost/plugin-sdk';
import { describe, expect, it } from 'vitest';
import { checkAvailabilityExpression, evaluateAvailability } from '../../../src/core/filter/availability.js';

const reasons = (expr: AvailabilityExpression | undefined, ctx = {}) =>
  evaluateAvailability(expr, ctx).map((d) => d.reason);

describe('evaluateAvailability', () => {
  it('treats a missing expression and always as available', () => {
    expect(evaluateAvailability(undefined, {})).toEqual([]);
    expect(evaluateAvailability({ kind: 'always' }, {})).toEqual([]);
  });

  it('auth: hidden with auth-missing until the provider is present', () => {
    const [d] = evaluateAvailability(auth('github'), { auth: ['gitlab'] });
    expect(d?.reason).toBe('auth-missing');
    expect(d?.message).toContain('github');
    expect(d?.signal).toEqual({ kind: 'auth', providerId: 'github' });
    expect(reasons(auth('github'), { auth: ['github'] })).toEqual([]);
  });

  it('config exists: any defined value counts, including empty ones', () => {
    expect(reasons(config('a.b'), { config: { a: {} } })).toEqual(['config-missing']);
    expect(reasons(config('a.b'), { config: { a: { b: '' } } })).toEqual([]);
    expect(reasons(config('a.b'), { config: { a: { b: 0 } } })).toEqual([]);
  });

  it('config non-empty: blank strings, empty arrays and objects, null are missing', () => {
    for (const value of ['  ', [], {}, null]) {
      expect(reasons(config('k', 'non-empty'), { config: { k: value } })).toEqual(['config-missing']);
    }
    expect(reasons(config('k', 'non-empty'), { config: { k: 'x' } })).toEqual([]);
    expect(reasons(config('k', 'non-empty'), { config: { k: false } })).toEqual([]);
  });

  it('config lookups see own properties only, never the prototype chain', () => {
    expect(reasons(config('toString'), { config: {} })).toEqual(['config-missing']);
    expect(reasons(config('a.constructor'), { config: { a: {} } })).toEqual(['config-missing']);
  });

  it('env: unset and blank (after trim) are missing', () => {
    expect(reasons(env('TOKEN'), { env: {} })).toEqual(['env-missing']);
    expect(reasons(env('TOKEN'), { env: { TOKEN: ' \t ' } })).toEqual(['env-missing']);
    expect(reasons(env('TOKEN'), { env: { TOKEN: 'x' } })).toEqual([]);
    expect(evaluateAvailability(env('TOKEN'), {})[0]?.message).toContain('TOKEN');
  });

  it('plugin-enabled: plugin-disabled unless the plugin is enabled', () => {
    expect(reasons(pluginEnabled('notes'), { enabledPlugins: ['math'] })).toEqual(['plugin-disabled']);
    expect(reasons(pluginEnabled('notes'), { enabledPlugins: ['notes'] })).toEqual([]);
  });

  it('context: key presence, and exact value when equals is given', () => {
    expect(reasons(context('channel'), { context: {} })).toEqual(['context-mismatch']);
    expect(reasons(context('channel'), { context: { channel: 'cli' } })).toEqual([]);
    const mismatch = evaluateAvailability(context('channel', 'slack'), { context: { channel: 'cli' } });
    expect(mismatch.map((d) => d.reason)).toEqual(['context-mismatch']);
    expect(mismatch[0]?.message).toContain('"slack"');
    expect(reasons(context('channel', 'slack'), { context: { channel: 'slack' } })).toEqual([]);
  });

  it('allOf reports every failing member', () => {
    const result = reasons(allOf(env('A'), auth('x'), env('B')), { env: { B: '1' } });
    expect(result).toEqual(['env-missing', 'auth-missing']);
  });

  it('anyOf holds when one member holds, and reports every branch when none does', () => {
    expect(reasons(anyOf(env('A'), env('B')), { env: { B: '1' } })).toEqual([]);
    expect(reasons(anyOf(env('A'), auth('x')), {})).toEqual(['env-missing', 'auth-missing']);
  });

  it('nested groups combine', () => {
    const expr = allOf(anyOf(env('A'), env('B')), context('channel', 'cli'));
    expect(reasons(expr, { env: { A: '1' }, context: { channel: 'cli' } })).toEqual([]);
    expect(reasons(expr, { env: {}, context: { channel: 'cli' } })).toEqual(['env-missing', 'env-missing']);
  });

  it('an empty group is unsupported-signal, never available', () => {
    expect(reasons({ allOf: [] })).toEqual(['unsupported-signal']);
    expect(reasons({ anyOf: [] })).toEqual(['unsupported-signal']);
    expect(reasons(allOf(env('A'), { anyOf: [] }), { env: { A: '1' } })).toEqual(['unsupported-signal']);
  });

  it('a missing member of a group is unsupported-signal, not a crash (found by the planner property test)', () => {
    const broken = { allOf: [undefined] } as unknown as AvailabilityExpression;
    expect(reasons(broken)).toEqual(['unsupported-signal']);
    expect(
      evaluateAvailability({ anyOf: [{ anyOf: [null] }] } as unknown as AvailabilityExpression, {})[0]
        ?.message,
    ).toBe('availability at (root).anyOf[0].anyOf[0] is null, not an expression');
  });

  it('a cyclic expression is unsupported-signal, and evaluation terminates', () => {
    const members: AvailabilityExpression[] = [];
    const cyclic: AvailabilityExpression = { anyOf: members };
    members.push(cyclic);
    const [d] = evaluateAvailability(cyclic, {});
    expect(d?.reason).toBe('unsupported-signal');
    expect(d?.message).toContain('cyclic');
  });

  it('a shared (non-cyclic) sub-expression is fine', () => {
    const shared = env('A');
    expect(reasons(allOf(shared, shared), { env: { A: '1' } })).toEqual([]);
  });

  it('unknown and malformed signals are unsupported-signal', () => {
    const unknown = { kind: 'moon-phase' } as unknown as AvailabilityExpression;
    expect(reasons(unknown)).toEqual(['unsupported-signal']);
    expect(evaluateAvailability(unknown, {})[0]?.message).toContain('moon-phase');
    expect(reasons({ kind: 'env', name: ' ' } as AvailabilityExpression)).toEqual(['unsupported-signal']);
    expect(
      reasons({ kind: 'config', path: 'a', check: 'full' } as unknown as AvailabilityExpression),
    ).toEqual(['unsupported-signal']);
    expect(reasons(null as unknown as AvailabilityExpression)).toEqual(['unsupported-signal']);
  });
});

describe('checkAvailabilityExpression', () => {
  it('finds only structural problems, regardless of the context', () => {
    expect(checkAvailabilityExpression(allOf(env('A'), auth('x')))).toEqual([]);
    expect(checkAvailabilityExpression({ allOf: [] })).toHaveLength(1);
  });
});
