import type { AvailabilityContext, AvailabilityExpression, ToolDescriptor } from '@toolhost/plugin-sdk';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildToolPlan } from '../../src/core/filter/planner.js';

const REASONS = new Set([
  'auth-missing',
  'config-missing',
  'context-mismatch',
  'env-missing',
  'plugin-disabled',
  'unsupported-signal',
]);
const word = fc.constantFrom('a', 'b', 'gh', 'x.y', '', ' ', '__proto__', 'constructor');

/** Signals of every kind, junk ones included (unknown kinds, wrong field types). */
const signal = fc.oneof(
  fc.constant({ kind: 'always' }),
  fc.record({ kind: fc.constant('auth'), providerId: word }),
  fc.record({
    kind: fc.constant('config'),
    path: word,
    check: fc.option(fc.constantFrom('exists', 'non-empty', 'bogus'), { nil: undefined }),
  }),
  fc.record({ kind: fc.constant('env'), name: word }),
  fc.record({ kind: fc.constant('plugin-enabled'), pluginId: word }),
  fc.record({
    kind: fc.constant('context'),
    key: word,
    equals: fc.option(fc.oneof(fc.string(), fc.integer(), fc.boolean()), { nil: undefined }),
  }),
  fc.anything({ maxDepth: 2 }),
) as fc.Arbitrary<AvailabilityExpression>;

const expression: fc.Arbitrary<AvailabilityExpression> = fc.letrec<{ expr: AvailabilityExpression }>(
  (tie) => ({
    expr: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      signal,
      fc.record({ allOf: fc.array(tie('expr'), { maxLength: 3 }) }),
      fc.record({ anyOf: fc.array(tie('expr'), { maxLength: 3 }) }),
    ),
  }),
).expr;

const context: fc.Arbitrary<AvailabilityContext> = fc.record(
  {
    auth: fc.array(word, { maxLength: 3 }),
    env: fc.dictionary(word, fc.option(fc.string({ maxLength: 3 }), { nil: undefined })),
    enabledPlugins: fc.array(word, { maxLength: 3 }),
    context: fc.dictionary(word, fc.anything({ maxDepth: 1 })),
    config: fc.anything({ maxDepth: 3 }),
  },
  { requiredKeys: [] },
);

const descriptors = fc.uniqueArray(fc.stringMatching(/^[a-z_]{1,8}$/), { maxLength: 12 }).chain((names) =>
  fc.tuple(
    ...names.map((name) =>
      fc.record({
        name: fc.constant(name),
        description: fc.constant('d'),
        inputSchema: fc.constant({ type: 'object' }),
        owner: fc.constant({ kind: 'custom' as const }),
        executor: fc.constant({ kind: 'core' as const, executorId: name }),
        availability: fc.option(expression, { nil: undefined }),
        sortKey: fc.option(fc.string({ maxLength: 3 }), { nil: undefined }),
      }),
    ),
  ),
) as fc.Arbitrary<ToolDescriptor[]>;

describe('the planner under generated descriptors and contexts', () => {
  it('accounts for every tool exactly once, says why each hidden one is hidden, and never throws', () => {
    fc.assert(
      fc.property(descriptors, context, (list, ctx) => {
        const plan = buildToolPlan(list, ctx);
        const names = [...plan.visible, ...plan.hidden].map((e) => e.descriptor.name).sort();
        expect(names).toEqual(list.map((d) => d.name).sort());
        for (const entry of plan.hidden) {
          expect(entry.diagnostics.length).toBeGreaterThan(0);
          for (const d of entry.diagnostics) {
            expect(REASONS.has(d.reason)).toBe(true);
            expect(d.message.length).toBeGreaterThan(0);
          }
        }
      }),
      { numRuns: 400 },
    );
  });

  it('is deterministic: the order tools arrive in never changes the plan', () => {
    fc.assert(
      fc.property(
        descriptors.chain((list) =>
          fc.tuple(fc.constant(list), fc.shuffledSubarray(list, { minLength: list.length })),
        ),
        context,
        ([list, shuffled], ctx) => {
          expect(buildToolPlan(shuffled, ctx)).toEqual(buildToolPlan(list, ctx));
        },
      ),
      { numRuns: 300 },
    );
  });
});
