import { describe, expect, it } from 'vitest';
import { loadPrelude } from '../../src/sandbox/prelude.js';

/** What a bundle binding zod's classic and mini APIs looks like to `preludeKindOf`. */
const CLASSIC = 'var e1 = /* @__PURE__ */ pick("zod", "z");';
const MINI = 'var e2 = /* @__PURE__ */ pick("zod/mini", "string");';

describe('the prelude of plugin isolates', () => {
  it('is built and snapshotted once per process, not once per plugin', async () => {
    const first = loadPrelude(`${CLASSIC} plugin one`);
    expect(loadPrelude(`${CLASSIC} plugin two`)).toBe(first);
    const prelude = await first;
    expect(prelude.snapshot).toBeDefined();
    expect(prelude.code).toContain('__toolhost_shared');
  });

  it("holds zod's mini API only for a bundle that binds it", async () => {
    const [base, full] = await Promise.all([loadPrelude(CLASSIC), loadPrelude(`${CLASSIC}${MINI}`)]);
    expect(loadPrelude(MINI)).toBe(loadPrelude(`${CLASSIC}${MINI}`));
    expect(full.code.length).toBeGreaterThan(base.code.length);
    expect(base.code).not.toContain('zod/v4/mini');
  });
});
