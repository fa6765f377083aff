import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonErrorOffset } from '../../src/config/json-position.js';
import { parseConfig } from '../../src/config/load.js';
import { configSchema } from '../../src/config/schema.js';
import { effectiveSettings } from '../../src/host/settings.js';

const KEYS = Object.keys(configSchema.shape);

/** Values of every shape, junk included: prototype keys, deep nesting, odd numbers. */
const junk = fc.oneof(
  fc.anything({ withNullPrototype: true, withObjectString: true, maxDepth: 4 }),
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -0, 2 ** 53, 2 ** 31, -1, '', '*', '__proto__'),
  fc.json().map((text) => JSON.parse(text) as unknown),
);

/** A config object whose keys are mostly real ones, with junk or plausible values. */
const nearConfig = fc.dictionary(fc.oneof(fc.constantFrom(...KEYS), fc.string()), junk, { maxKeys: 6 });

function expectWellFormed(outcome: ReturnType<typeof parseConfig>): void {
  if (outcome.ok) return;
  expect(outcome.issues.length).toBeGreaterThan(0);
  for (const issue of outcome.issues) {
    expect(issue.file).toBe('junk.json');
    expect(typeof issue.path).toBe('string');
    expect(issue.message.length).toBeGreaterThan(0);
  }
}

describe('the config parser under generated junk', () => {
  it('never throws; every rejection names a path and a message', () => {
    fc.assert(
      fc.property(fc.oneof(junk, nearConfig), (value) => {
        expectWellFormed(parseConfig(value, 'junk.json'));
      }),
      { numRuns: 800 },
    );
  });

  it('an accepted config survives a JSON round trip and settles into settings without throwing', () => {
    fc.assert(
      fc.property(nearConfig, (value) => {
        const outcome = parseConfig(value, 'junk.json');
        if (!outcome.ok) return;
        const again = parseConfig(JSON.parse(JSON.stringify(outcome.config)), 'junk.json');
        expect(again.ok).toBe(true);
        const settings = effectiveSettings(outcome.config, {}, {});
        expect(settings.limits.timeoutMs).toBeGreaterThan(0);
      }),
      { numRuns: 800 },
    );
  });

  it('locates a syntax error inside the text, whatever the text', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json().map((j) => j.slice(0, Math.max(0, j.length - 1))),
        ),
        (text) => {
          let parses = true;
          try {
            JSON.parse(text);
          } catch {
            parses = false;
          }
          if (parses) return;
          const offset = jsonErrorOffset(text);
          expect(offset).toBeGreaterThanOrEqual(0);
          expect(offset).toBeLessThanOrEqual(text.length);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
