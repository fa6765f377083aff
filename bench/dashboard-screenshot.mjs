// Writes docs/dashboard.png: `toolhost dev` on this repository's example plugins (as `npm start`
// runs it), a few calls made from the dashboard's own API so the live events have something to
// show, captured in Debian's headless Chromium (CHROMIUM_PATH to use another). Needs `npm run build`.
// Run: node bench/dashboard-screenshot.mjs
import { spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CLI = path.join(REPO, 'packages/host/dist/cli/main.js');
const OUT = path.join(REPO, 'docs/dashboard.png');
/** The dashboard's address as dev prints it, with the run's token. */
const URL_LINE = /dashboard ((http:\/\/127\.0\.0\.1:\d+)\/\?token=([A-Za-z0-9_-]+))\n/;

const env = { ...process.env };
delete env.WEATHER_API_KEY; // so the plan shows a hidden tool and why
const dev = spawn(process.execPath, [CLI, 'dev', '--root', '.', '--port', '0'], {
  cwd: REPO,
  env,
  stdio: ['ignore', 'pipe', 'inherit'],
});
let browser;
try {
  const [address, origin, token] = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`toolhost dev printed no URL in 30 s:\n${out}`)), 30_000);
    dev.stdout.setEncoding('utf8').on('data', (chunk) => {
      out += chunk;
      const match = URL_LINE.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match.slice(1));
      }
    });
    dev.once('exit', (code) => reject(new Error(`toolhost dev exited (${code}):\n${out}`)));
  });
  dev.stdout.resume();

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
