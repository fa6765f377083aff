import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callFromNode, type Dev, launchChromium, openDashboard, startDev } from './harness.js';

describe('dashboard: calls and approvals', () => {
  let browser: Browser;
  let dev: Dev;

  beforeAll(async () => {
    [browser, dev] = await Promise.all([
      launchChromium(),
      startDev(['healthy', 'counter'], { builtins: false, tools: { approve: ['counter_next'] } }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([browser?.close(), dev?.stop()]);
  });

  it('the try-a-tool form names a missing required field, then calls the tool and shows its result', async () => {
    const { page, close } = await openDashboard(browser, dev, '#/tool/healthy_echo');
    await page.waitForSelector('#tool-form [data-path="text"]');

    await page.click('#tool-form button[type="submit"]');
    await page.waitForSelector('#form-errors li');
    expect(await page.locator('#form-errors li').allTextContents()).toEqual(['text is required']);
    expect(await page.locator('#tool-form [data-path="text"].invalid').count()).toBe(1);
    expect(await page.locator('#call-result').textContent()).toBe('');

    await page.fill('#tool-form [data-path="text"]', 'hi from the page');
    await page.click('#tool-form button[type="submit"]');
    const result = page.locator('#call-result .call-result');
    await result.waitFor();
    expect(await result.getAttribute('data-status')).toBe('ok');
    expect(await result.locator('.content-text').textContent()).toBe('echo: hi from the page');
    expect(await page.locator('#form-errors li').count()).toBe(0);

    // The call shows in the live events too: from the dashboard, with its input and how it ended.
    const row = page.locator('#events li.event[data-type="call"]', { hasText: 'healthy_echo' }).first();
    await row.locator('.badge.status-ok').waitFor();
    expect(await row.textContent()).toContain('dashboard');
    expect(await row.textContent()).toContain('hi from the page');
    await close();
  });

  it('a pending approval is answered from the page, and the waiting call runs', async () => {
    const { page, close } = await openDashboard(browser, dev);
    const call = callFromNode(dev, 'counter_next', {});

    const pending = page.locator('#approvals li.approval[data-tool="counter_next"]');
    await pending.waitFor();
    expect(await pending.textContent()).toContain('counter_next');
    await pending.locator('button[data-decision="allow-once"]').click();

    expect(await call).toMatchObject({ status: 'ok', result: { content: [{ type: 'text', text: '1' }] } });
    // The `decided` event takes it off the list.
    await page.waitForSelector('#approvals li.approval', { state: 'detached' });
    await page.locator('#events li.event[data-type="approval"]', { hasText: 'allow-once' }).first().waitFor();
    await close();
  });

  it('a POST with a foreign Origin, or none, is refused with a JSON error naming the Origin', async () => {
    const foreign = await fetch(`${dev.origin}/api/call`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://evil.example' },
      body: JSON.stringify({ tool: 'healthy_echo', input: { text: 'x' } }),
    });
    expect(foreign.status).toBe(403);
    expect(((await foreign.json()) as { error: string }).error).toMatch(/origin/i);

    // With the token, so the refusal is the Origin check's own.
    const none = await fetch(`${dev.origin}/api/approvals/nothing`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${dev.token}` },
      body: JSON.stringify({ decision: 'deny' }),
    });
    expect(none.status).toBe(403);
    expect(((await none.json()) as { error: string }).error).toMatch(/origin/i);
  });
});
