import { readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Dev, launchChromium, openDashboard, startDev } from './harness.js';

describe('dashboard: the plan, live', () => {
  let browser: Browser;
  let dev: Dev;

  beforeAll(async () => {
    [browser, dev] = await Promise.all([
      launchChromium(),
      startDev(['healthy', 'counter'], {
        builtins: false,
        tools: { deny: ['counter_hold'], defer: ['counter_next'] },
      }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([browser?.close(), dev?.stop()]);
  });

  it('renders the visible tools (owner, kind, deferred or loaded), the hidden ones with their diagnostics, and the plugins', async () => {
    const { page, close } = await openDashboard(browser, dev);
    const echo = page.locator('#tools tbody tr[data-name="healthy_echo"]');
    await expect(echo.locator('td').nth(1).textContent()).resolves.toBe('plugin:healthy');
    await expect(echo.locator('td').nth(2).textContent()).resolves.toBe('plugin');
    await expect(echo.locator('td').nth(4).textContent()).resolves.toBe('loaded');
    const next = page.locator('#tools tbody tr[data-name="counter_next"]');
    await expect(next.locator('td').nth(4).textContent()).resolves.toBe('deferred');

    const hidden = page.locator('#hidden-tools li[data-name="counter_hold"]');
    await expect(hidden.locator('.diagnostics').textContent()).resolves.toMatch(/\S/);

    await expect(page.locator('#plugins li[data-id="healthy"]').getAttribute('data-status')).resolves.toBe(
      'loaded',
    );
    // Live isolates, and the memory of the process holding them and of the host.
    const memory = await page.locator('#isolates dd.memory').allTextContents();
    expect(memory).toHaveLength(2);
    for (const text of memory) expect(text).toMatch(/^\d+\.\d MB resident, \d+\.\d MB JS heap$/);

    // The filter hides rows as one types, by name, description or owner.
    await page.fill('#filter', 'echoes');
    await page.waitForSelector('#tools tbody tr[data-name="counter_next"].filtered', { state: 'attached' });
    expect(
      await page
        .locator('#tools tbody tr:not(.filtered)')
        .evaluateAll((rows) => rows.map((r) => r.dataset.name)),
    ).toEqual(['healthy_echo']);

    // A tool's page: its description and schema.
    await page.fill('#filter', '');
    await page.click('#tools a.tool-link[href="#/tool/healthy_echo"]');
    await page.waitForSelector('#tool-view:not([hidden]) #input-schema');
    expect(await page.locator('#tool-view .description').textContent()).toBe('Echoes its text');
    expect(JSON.parse((await page.locator('#input-schema').textContent()) ?? '')).toMatchObject({
      properties: { text: { type: 'string' } },
      required: ['text'],
    });
    await close();
  });

  it('shows a plugin edit live, with its rebuild line, without reloading the page; then a broken save with its file:line', async () => {
    const { page, close } = await openDashboard(browser, dev);
    // A reload would wipe this marker.
    await page.evaluate('window.marker = 1');
    const file = path.join(dev.root, 'plugins', 'healthy', 'index.ts');
    const source = await readFile(file, 'utf8');
    await writeFile(file, source.replaceAll('healthy_echo', 'healthy_shout'));

    await page.waitForSelector('#tools tbody tr[data-name="healthy_shout"]');
    expect(await page.locator('#tools tbody tr[data-name="healthy_echo"]').count()).toBe(0);
    const rebuild = page.locator('#events li.event[data-type="rebuild"]', { hasText: 'added healthy_shout' });
    await rebuild.first().waitFor();
    expect(await rebuild.first().textContent()).toMatch(
      /in \d+ ms .*added healthy_shout; removed healthy_echo/,
    );

    // A save that does not parse: the error, with the file and line, in the events and on the plugin.
    await writeFile(file, 'export default {\n  id: "healthy",\n');
    const error = page.locator('#events li.event[data-type="plugin-error"]').first();
    await error.waitFor();
    // esbuild stops at the end of the file: line 3 of the plugin's index.ts.
    expect(await error.locator('.where').textContent()).toMatch(/index\.ts:3(:\d+)?$/);
    await page.waitForSelector('#plugins li[data-id="healthy"][data-status="failed"] .plugin-error .where');
    expect(await page.locator('#plugins li[data-id="healthy"] .where').textContent()).toMatch(
      /index\.ts:3(:\d+)?$/,
    );
    await page.waitForSelector('#hidden-tools li[data-name="healthy_shout"]');

    expect(await page.evaluate('window.marker')).toBe(1);
    await writeFile(file, source);
    await page.waitForSelector('#tools tbody tr[data-name="healthy_echo"]');
    await close();
  });
});
