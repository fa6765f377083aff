import { describe, expect, it } from 'vitest';
import { effectiveSettings } from '../src/settings.js';

describe('effectiveSettings', () => {
  it("passes the config's grep budgets to the built-in tools", () => {
    const grep = { searchBudgetMs: 3_000, fileBudgetMs: 250 };
    expect(effectiveSettings({ builtins: { grep } }, {}, {}).builtins).toEqual({ grep });
  });
});
