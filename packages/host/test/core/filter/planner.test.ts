import { env, isToolPlanContractError, ToolPlanContractError } from '@toolhost/plugin-sdk';
import { describe, expect, it } from 'vitest';
import { buildToolPlan } from '../../../src/core/filter/planner.js';
import { descriptor } from '../../helpers.js';

describe('buildToolPlan', () => {
  it('sorts by sortKey ?? name, then by name', () => {
    const plan = buildToolPlan(
      [
        descriptor('zeta'),
        descriptor('alpha', { sortKey: 'm' }),
        descriptor('beta', { sortKey: 'm' }),
        descriptor('gamma'),
      ],
      {},
    );
    expect(plan.visible.map((e) => e.descriptor.name)).toEqual(['gamma', 'alpha', 'beta', 'zeta']);
  });

  it('orders by code unit, independent of locale', () => {
    const plan = buildToolPlan([descriptor('b'), descriptor('B'), descriptor('a')], {});
    expect(plan.visible.map((e) => e.descriptor.name)).toEqual(['B', 'a', 'b']);
  });

  it('throws duplicate-tool-name naming both owners', () => {
    const run = () =>
      buildToolPlan([descriptor('x'), descriptor('x', { owner: { kind: 'plugin', pluginId: 'p' } })], {});
    expect(run).toThrow(ToolPlanContractError);
    try {
      run();
    } catch (error) {
      expect(isToolPlanContractError(error)).toBe(true);
      expect((error as ToolPlanContractError).code).toBe('duplicate-tool-name');
      expect((error as ToolPlanContractError).toolName).toBe('x');
      expect((error as Error).message).toContain('plugin:p');
    }
  });

  it('throws missing-executor for a visible descriptor without executor', () => {
    const bare = { ...descriptor('orphan') };
    delete (bare as { executor?: unknown }).executor;
    expect(() => buildToolPlan([bare], {})).toThrow(
      expect.objectContaining({ code: 'missing-executor', toolName: 'orphan' }),
    );
  });

  it('does not require an executor of a hidden descriptor', () => {
    const bare = { ...descriptor('later', { availability: env('NOPE') }) };
    delete (bare as { executor?: unknown }).executor;
    const plan = buildToolPlan([bare], { env: {} });
    expect(plan.visible).toEqual([]);
    expect(plan.hidden[0]?.diagnostics[0]?.reason).toBe('env-missing');
  });

  it('splits visible and hidden, each hidden entry with its diagnostics', () => {
    const plan = buildToolPlan([descriptor('a'), descriptor('b', { availability: env('B_KEY') })], {
      env: {},
    });
    expect(plan.visible.map((e) => e.descriptor.name)).toEqual(['a']);
    expect(plan.visible[0]?.executor).toEqual({ kind: 'core', executorId: 'a' });
    expect(plan.hidden).toEqual([
      {
        descriptor: expect.objectContaining({ name: 'b' }),
        diagnostics: [
          {
            reason: 'env-missing',
            message: expect.stringContaining('B_KEY'),
            signal: { kind: 'env', name: 'B_KEY' },
          },
        ],
      },
    ]);
  });

  it('is pure: the input array is untouched and the same input gives the same plan', () => {
    const input = [descriptor('b'), descriptor('a')];
    const copy = structuredClone(input);
    const first = buildToolPlan(input, {});
    expect(input).toEqual(copy);
    expect(buildToolPlan(input, {})).toEqual(first);
  });
});
