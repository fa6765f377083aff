/**
 * Drives the dashboard of a real `toolhost dev` (the built CLI, on a temp project) in Debian's
 * headless Chromium through playwright-core — no browser is downloaded. A missing Chromium fails
 * the tests, loudly: `.ci/run` installs it, and a skipped browser test would prove nothing.
 */
import { access } from 'node:fs/promises';
import { type Browser, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { project, type Running, startToolhost } from '../../cli/cli.js';

/** Debian's `chromium` package; CHROMIUM_PATH points elsewhere. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
  try {
    await access(CHROMIUM);
  } catch {
    throw new Error(
      `no Chromium at ${CHROMIUM}: install it (apt-get install -y chromium, as .ci/run does) or set CHROMIUM_PATH`,
    );
  }
  // --no-sandbox: CI runs as root, where Chromium's own sandbox refuses to start.
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}

/** The line dev prints for its dashboard: the page's address with the run's token. */
const DASHBOARD_LINE = /dashboard ((http:\/\/127\.0\.0\.1:\d+)\/\?token=([A-Za-z0-9_-]+))\n/;

/** A running `toolhost dev` and the address of its dashboard. */
export interface Dev {
  readonly root: string;
  readonly dev: Running;
  /** `http://127.0.0.1:<port>` — the dashboard's origin (the page is at `/`). */
  readonly origin: string;
  /** The address dev printed: `<origin>/?token=…`, the way in a person opens. */
  readonly url: string;
  /** The run's token, for requests made from Node as the page makes them. */
  readonly token: string;
  stop(): Promise<void>;
}

/** Starts `toolhost dev --port 0` on a temp project with these plugins and config. */
export async function startDev(
  plugins: Parameters<typeof project>[0],
  config: unknown,
  prepare?: (root: string) => Promise<void>,
): Promise<Dev> {
  const { root, dispose } = await project(plugins, config);
  await prepare?.(root);
  const dev = startToolhost(['dev', '--port', '0', '--root', root]);
  try {
    const [, url = '', origin = '', token = ''] = await dev.stdout.waitFor(DASHBOARD_LINE, {
      timeoutMs: 30_000,
    });
    return {
      root,
      dev,
      origin,
      url,
      token,
      async stop() {
        try {
          await dev.stop('SIGINT');
        } finally {
          await dispose();
        }
      },
    };
  } catch (error) {
    await dev.stop('SIGKILL').catch(() => {});
    await dispose();
    throw error;
  }
}

/** A page whose console errors and uncaught exceptions (CSP violations included) are collected. */
export interface WatchedPage {
  readonly page: Page;
  readonly problems: string[];
  /** Fails the test on any problem seen, then closes the page. */
  close(): Promise<void>;
}

/** Opens the address dev printed (with `hash`, a route of the page), as a person would. */
export async function openDashboard(browser: Browser, dev: Dev, hash = ''): Promise<WatchedPage> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  // Fail at the selector that is missing, well before the test's own timeout.
  page.setDefaultTimeout(15_000);
  const response = await page.goto(`${dev.url}${hash}`);
  if (response?.status() !== 200) {
    await page.close();
    throw new Error(
      `GET ${dev.origin}/ answered ${response?.status()}: toolhost dev serves no dashboard there`,
    );
  }
  // The first state is rendered and the event stream is connected.
  await page.waitForSelector('html.ready');
  await page.waitForSelector('#connection.live');
  return {
    page,
    problems,
    async close() {
      await page.close();
      expect(problems).toEqual([]);
    },
  };
}

/** The headers of the page's API requests: its Origin and the run's token. */
export function pageHeaders(dev: Dev): Record<string, string> {
  return { 'content-type': 'application/json', origin: dev.origin, authorization: `Bearer ${dev.token}` };
}

/** POST /api/call from Node, as the page would (with its Origin and token). */
export async function callFromNode(dev: Dev, tool: string, input: unknown): Promise<unknown> {
  const response = await fetch(`${dev.origin}/api/call`, {
    method: 'POST',
    headers: pageHeaders(dev),
    body: JSON.stringify({ tool, input }),
  });
  expect(response.status).toBe(200);
  return response.json();
}
