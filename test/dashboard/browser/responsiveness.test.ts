import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Dev, launchChromium, openDashboard, pageHeaders, startDev } from './harness.js';

const PLUGINS = 4;
const TOOLS_PER_PLUGIN = 250;
const CALLS_PER_SECOND = 100;
const SECONDS = 3;
/**
 * Far above a smooth page's frame gap (~16 ms), far below a frozen one's: generous, because two
 * loaded cores run the host, the CLI's plugins and Chromium at once.
 */
const MAX_FRAME_GAP_MS = 500;

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

/**
 * Runs in the page (a string: the test's own TypeScript has no DOM types): records the longest gap
 * between animation frames and the longest task the browser reports, from now on.
 */
const START_MEASURING = `(() => {
  const m = (window.measure = { maxFrameGapMs: 0, frames: 0, longestTaskMs: 0, stop: false });
  let last = performance.now();
  const frame = (now) => {
    m.maxFrameGapMs = Math.max(m.maxFrameGapMs, now - last);
    m.frames++;
    last = now;
    if (!m.stop) requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) m.longestTaskMs = Math.max(m.longestTaskMs, entry.duration);
  }).observe({ type: 'longtask' });
})()`;

const STOP_MEASURING = `(() => {
  const m = window.measure;
  m.stop = true;
  return { maxFrameGapMs: m.maxFrameGapMs, frames: m.frames, longestTaskMs: m.longestTaskMs, rows: document.querySelectorAll('#events > li').length };
})()`;

interface Measured {
  readonly maxFrameGapMs: number;
  readonly frames: number;
  readonly longestTaskMs: number;
  readonly rows: number;
}

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

  it('stays responsive with 1,000 tools and 100 calls a second, with a bounded event list', async () => {
    const { page, close } = await openDashboard(browser, dev);
    expect(await page.locator('#tools tbody tr').count()).toBe(PLUGINS * TOOLS_PER_PLUGIN);

    // Frame gaps (requestAnimationFrame) and long tasks, measured in the page from here on.
    await page.evaluate(START_MEASURING);

    // Typing in the filter over 1,000 rows.
    await page.fill('#filter', 'bulk2_1');
    await page.waitForSelector('#tools tbody tr[data-name="bulk0_0"].filtered', { state: 'attached' });
    // bulk2_1, bulk2_10…19, bulk2_100…199
    expect(await page.locator('#tools tbody tr:not(.filtered)').count()).toBe(111);
    await page.fill('#filter', '');

    // 100 calls a second for 3 seconds, some with results long enough to be folded.
    const total = CALLS_PER_SECOND * SECONDS;
    const calls: Promise<Response>[] = [];
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        for (let i = 0; i < CALLS_PER_SECOND / 10; i++) {
          const n = calls.length;
          calls.push(
            fetch(`${dev.origin}/api/call`, {
              method: 'POST',
              headers: pageHeaders(dev),
              body: JSON.stringify({
                tool: `bulk${n % PLUGINS}_${n % TOOLS_PER_PLUGIN}`,
                input: { n: n % 7 === 0 ? 3000 : 5 },
              }),
            }),
          );
        }
        if (calls.length >= total) {
          clearInterval(timer);
          resolve();
        }
      }, 100);
    });
    const statuses = await Promise.all(calls.map(async (c) => (await c).status));
    expect(statuses.every((s) => s === 200)).toBe(true);

    // Every call's end reached the page (a start and an end each).
    await expect
      .poll(async () => Number(await page.locator('#event-count').getAttribute('data-total')), {
        timeout: 15_000,
      })
      .toBeGreaterThanOrEqual(2 * total);
    const measured = (await page.evaluate(STOP_MEASURING)) as Measured;
    console.log(`dashboard responsiveness: ${JSON.stringify(measured)}`);
    expect(measured.rows).toBeLessThanOrEqual(300);
    expect(measured.maxFrameGapMs).toBeLessThan(MAX_FRAME_GAP_MS);
    await close();
  });
});
