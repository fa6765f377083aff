// How smooth the dashboard stays under load: `toolhost dev` (the built CLI) on a temp project of
// 4 plugins × 250 tools, the page in Debian's headless Chromium (CHROMIUM_PATH to use another),
// typing in the tool filter and then 100 calls a second for 3 seconds through POST /api/call. The
// page measures the longest gap between animation frames (~16 ms when smooth) and the longest task
// the browser reports. A timing, so it lives here and not in test/dashboard/browser/
// (responsiveness.test.ts checks what the page shows, with no clock). Needs `npm run build`.
// Run: node bench/dashboard-responsiveness.mjs
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { chromium } from 'playwright-core';
import { startDashboardDev } from './lib/dashboard-dev.mjs';
import { TOOLHOST_BIN } from './lib/paths.mjs';

const PLUGINS = 4;
const TOOLS_PER_PLUGIN = 250;
const CALLS_PER_SECOND = 100;
const SECONDS = 3;

/** A plugin of `TOOLS_PER_PLUGIN` small tools, `bulk<p>_<i>`. */
const bulkPlugin = (p) => `import { definePlugin, defineTool } from '@toolhost/plugin-sdk';
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

/** Runs in the page: the longest frame gap and long task from now on. */
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
  return { maxFrameGapMs: Math.round(m.maxFrameGapMs), frames: m.frames, longestTaskMs: Math.round(m.longestTaskMs) };
})()`;

const root = await mkdtemp(path.join(tmpdir(), 'toolhost-bench-dashboard-'));
for (let p = 0; p < PLUGINS; p++) {
  await mkdir(path.join(root, 'plugins', `bulk${p}`), { recursive: true });
  await writeFile(path.join(root, 'plugins', `bulk${p}`, 'index.ts'), bulkPlugin(p));
}
await writeFile(path.join(root, 'toolhost.config.json'), JSON.stringify({ builtins: false }));
const { dev, address, origin, token } = await startDashboardDev(TOOLHOST_BIN, ['--root', root]);
let browser;
try {
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox'],
  });
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  await page.goto(address);
  await page.waitForSelector('html.ready');
  await page.waitForSelector('#connection.live');

  await page.evaluate(START_MEASURING);
  await page.fill('#filter', 'bulk2_1');
  await page.waitForSelector('#tools tbody tr[data-name="bulk0_0"].filtered', { state: 'attached' });
  await page.fill('#filter', '');
  const headers = { 'content-type': 'application/json', origin, authorization: `Bearer ${token}` };
  const total = CALLS_PER_SECOND * SECONDS;
  const calls = [];
  await new Promise((resolve) => {
    const timer = setInterval(() => {
      for (let i = 0; i < CALLS_PER_SECOND / 10; i++) {
        const n = calls.length;
        const body = JSON.stringify({
          tool: `bulk${n % PLUGINS}_${n % TOOLS_PER_PLUGIN}`,
          input: { n: n % 7 === 0 ? 3000 : 5 },
        });
        calls.push(fetch(`${origin}/api/call`, { method: 'POST', headers, body }));
      }
      if (calls.length >= total) {
        clearInterval(timer);
        resolve();
      }
    }, 100);
  });
  await Promise.all(calls);
  await page.waitForFunction(
    (want) => Number(document.querySelector('#event-count')?.getAttribute('data-total')) >= want,
    2 * total,
    { timeout: 60_000 },
  );
  const measured = await page.evaluate(STOP_MEASURING);
  console.log(
    `dashboard responsiveness (${PLUGINS * TOOLS_PER_PLUGIN} tools, ${CALLS_PER_SECOND} calls/s for ${SECONDS} s): ` +
      `longest frame gap ${measured.maxFrameGapMs} ms over ${measured.frames} frames, longest task ${measured.longestTaskMs} ms`,
  );
} finally {
  await browser?.close();
  dev.kill('SIGINT');
  await new Promise((resolve) => (dev.exitCode === null ? dev.once('exit', resolve) : resolve()));
  await rm(root, { recursive: true, force: true });
}
