import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Dev, launchChromium, openDashboard, pageHeaders, startDev } from './harness.js';

const PLUGINS = 4;
const TOOLS_PER_PLUGIN = 250;
/** Calls made while the page is open, in batches of `BATCH` at once. */
const CALLS = 300;
const BATCH = 10;

/** A plugin of `TOOLS_PER_PLUGIN` small tools, `bulk<p>_<i>`. */
function bulkPlugin(p: number): string {
  return `import { definePlugin, defineTool } from '@toolhost/plugin-sdk';
import * as z from 'zod';
export default definePlugin({
  id: 'bulk${p}',
  tools: Array.from({ length: ${TOOLS_PER_PLUGIN} }, (_, i) =>
    defineTool({
      name: \`bulk${p}_\${i}\`,
      description: \`Bulk tool \${i} of plugin ${p}\`,
      input: z.object({ n: z.number() }),
      execute: ({ n }) => 'x'.repeat(n),
    }),
  ),
});
`;
}

/** Runs in the page (a string: the test's own TypeScript has no DOM types): the event list's length. */
const EVENT_ROWS = `document.querySelectorAll('#events > li').length`;

describe('dashboard: responsiveness', () => {
  let browser: Browser;
  let dev: Dev;

  beforeAll(async () => {
    [browser, dev] = await Promise.all([
      launchChromium(),
      startDev([], { builtins: false }, async (root) => {
        for (let p = 0; p < PLUGINS; p++) {
          await mkdir(path.join(root, 'plugins', `bulk${p}`));
          await writeFile(path.join(root, 'plugins', `bulk${p}`, 'index.ts'), bulkPlugin(p));
        }
      }),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([browser?.close(), dev?.stop()]);
  });

  // How smooth the page stays meanwhile (frame gaps, long tasks) is a timing: it is measured by
  // bench/dashboard-responsiveness.mjs, not asserted here.
  it('with 1,000 tools and 300 calls in quick succession, filters, shows every call and keeps the event list bounded', async () => {
    const { page, close } = await openDashboard(browser, dev);
    expect(await page.locator('#tools tbody tr').count()).toBe(PLUGINS * TOOLS_PER_PLUGIN);

    // Typing in the filter over 1,000 rows.
    await page.fill('#filter', 'bulk2_1');
    await page.waitForSelector('#tools tbody tr[data-name="bulk0_0"].filtered', { state: 'attached' });
    // bulk2_1, bulk2_10…19, bulk2_100…199
    expect(await page.locator('#tools tbody tr:not(.filtered)').count()).toBe(111);
    await page.fill('#filter', '');

    // Calls in batches, some with results long enough to be folded.
    const statuses: number[] = [];
    for (let first = 0; first < CALLS; first += BATCH) {
      const batch = Array.from({ length: BATCH }, (_, i) => {
        const n = first + i;
        return fetch(`${dev.origin}/api/call`, {
          method: 'POST',
          headers: pageHeaders(dev),
          body: JSON.stringify({
            tool: `bulk${n % PLUGINS}_${n % TOOLS_PER_PLUGIN}`,
            input: { n: n % 7 === 0 ? 3000 : 5 },
          }),
        }).then((response) => response.status);
      });
      statuses.push(...(await Promise.all(batch)));
    }
    expect(statuses.filter((s) => s !== 200)).toEqual([]);

    // Every call's end reached the page (a start and an end each).
    await expect
      .poll(async () => Number(await page.locator('#event-count').getAttribute('data-total')), {
        timeout: 60_000,
      })
      .toBeGreaterThanOrEqual(2 * CALLS);
    expect(await page.evaluate(EVENT_ROWS)).toBeLessThanOrEqual(300);
    await close();
  });
});
