import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEvents } from '../helpers.js';
import { type Dev, launchChromium, openDashboard, startDev } from './harness.js';

/**
 * Issue 24, item 2, from the page's side: the address dev printed (with `?token=`) opens a page
 * that works end to end; the token leaves the address bar and stays with the tab; a page opened
 * without it is told where to find it.
 */
describe('dashboard: only the page dev opened', () => {
  let browser: Browser;
  let dev: Dev;

  beforeAll(async () => {
    [browser, dev] = await Promise.all([launchChromium(), startDev(['healthy'], { builtins: false })]);
  });
  afterAll(async () => {
    await Promise.all([browser?.close(), dev?.stop()]);
  });

  it('the printed address opens a working page; the token leaves the address bar and survives a reload', async () => {
    const { page, close } = await openDashboard(browser, dev, '#/tool/healthy_echo');
    // Out of the address (history, bookmarks, screenshots), the route kept.
    expect(page.url()).toBe(`${dev.origin}/#/tool/healthy_echo`);
    expect(await page.evaluate(() => sessionStorage.getItem('toolhost-dashboard-token'))).toBe(dev.token);

    await page.reload();
    await page.waitForSelector('html.ready');
    await page.waitForSelector('#connection.live');
    await page.fill('#tool-form [data-path="text"]', 'after a reload');
    await page.click('#tool-form button[type="submit"]');
    const result = page.locator('#call-result .call-result');
    await result.waitFor();
    expect(await result.getAttribute('data-status')).toBe('ok');
    expect(await result.locator('.content-text').textContent()).toBe('echo: after a reload');
    await page.locator('#events li.event[data-type="call"]', { hasText: 'after a reload' }).first().waitFor();
    await close();
  });

  it('a page closed for newer streams past the cap of 8 says why and stays closed', async () => {
    const { page, close } = await openDashboard(browser, dev);
    const newer = Array.from({ length: 8 }, () => openEvents(`${dev.url.replace('/?', '/api/events?')}`));
    try {
      await Promise.all(newer.map((stream) => stream.comment('connected')));
      const row = page.locator('#events li.event[data-type="dropped"]');
      await row.waitFor();
      expect(await row.textContent()).toMatch(/more than 8 pages are streaming events/);
      // Closed on purpose: a reconnect would only close the oldest of the others in turn.
      await page.waitForSelector('#connection.off');
      expect(await page.locator('#connection').textContent()).toBe('disconnected');
      expect(newer.map((stream) => stream.ended)).toEqual(Array(8).fill(false));
    } finally {
      for (const stream of newer) stream.close();
    }
    await close();
  });

  it('a page opened without the token says to open the address dev printed, and shows nothing of the host', async () => {
    const page = await browser.newPage();
    try {
      page.setDefaultTimeout(15_000);
      expect((await page.goto(`${dev.origin}/`))?.status()).toBe(200);
      const banner = page.locator('#load-error');
      await banner.waitFor();
      expect(await banner.textContent()).toMatch(/401 .*open the dashboard address toolhost dev printed/);
      await page.waitForSelector('#connection.off');
      expect(await page.locator('#tools tbody tr').count()).toBe(0);
      expect(await page.locator('#events li.event').count()).toBe(0);
    } finally {
      await page.close();
    }
  });

  it('a page with the token of an earlier run is told the token changed', async () => {
    const page = await browser.newPage();
    try {
      page.setDefaultTimeout(15_000);
      await page.goto(`${dev.origin}/?token=from-an-earlier-run`);
      const banner = page.locator('#load-error');
      await banner.waitFor();
      expect(await banner.textContent()).toMatch(/403 .*each run of toolhost dev makes a new one/);
      await page.waitForSelector('#connection.off');
      expect(await page.locator('#tools tbody tr').count()).toBe(0);
    } finally {
      await page.close();
    }
  });
});
