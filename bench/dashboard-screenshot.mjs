// Writes docs/dashboard.png: `toolhost dev` on this repository's example plugins (as `npm start`
// runs it), a few calls made from the dashboard's own API so the live events have something to
// show, captured in Debian's headless Chromium (CHROMIUM_PATH to use another). Needs `npm run build`.
// Run: node bench/dashboard-screenshot.mjs
import { mkdir } from 'node:fs/promises';
import * as path from 'node:path';
import { chromium } from 'playwright-core';
import { startDashboardDev } from './lib/dashboard-dev.mjs';
import { REPO, TOOLHOST_BIN } from './lib/paths.mjs';

const OUT = path.join(REPO, 'docs/dashboard.png');

const env = { ...process.env };
delete env.WEATHER_API_KEY; // so the plan shows a hidden tool and why
const { dev, address, origin, token } = await startDashboardDev(TOOLHOST_BIN, ['--root', '.'], {
  cwd: REPO,
  env,
  waitMs: 30_000,
});
let browser;
try {
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox'],
  });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 }, deviceScaleFactor: 1 });
  await page.goto(address);
  await page.waitForSelector('html.ready');
  await page.waitForSelector('#connection.live');

  const call = (tool, input) =>
    fetch(`${origin}/api/call`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin, authorization: `Bearer ${token}` },
      body: JSON.stringify({ tool, input }),
    }).then((r) => r.json());
  await call('text_stats', { text: 'The quick brown fox\njumps over the lazy dog' });
  await call('text_case', { text: 'Hello dashboard', to: 'upper' });
  await call('text_stats', {});
  await page.waitForSelector('#events li.event[data-type="call"] .badge.status-ok');

  await mkdir(path.dirname(OUT), { recursive: true });
  await page.screenshot({ path: OUT });
  console.log(`wrote ${path.relative(REPO, OUT)}`);
} finally {
  await browser?.close();
  dev.kill('SIGINT');
}
