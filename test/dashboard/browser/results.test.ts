import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Dev, launchChromium, openDashboard, startDev } from './harness.js';

/** A 1×1 PNG and a 44-byte silent WAV, as base64. */
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const WAV = 'UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=';

/** A plugin whose tool returns one block of every content type, and structured output. */
const media = `import { definePlugin, defineTool } from '@toolhost/plugin-sdk';
import * as z from 'zod';
export default definePlugin({
  id: 'media',
  tools: [
    defineTool({
      name: 'media_all',
      description: 'Returns every kind of content',
      input: z.object({}),
      output: z.object({ report: z.object({ pages: z.array(z.number()), title: z.string() }) }),
      execute: () => ({
        content: [
          { type: 'text', text: 'a text block' },
          { type: 'image', data: '${PNG}', mimeType: 'image/png' },
          { type: 'audio', data: '${WAV}', mimeType: 'audio/wav' },
          { type: 'resource_link', uri: 'https://example.com/report.pdf', name: 'report.pdf', description: 'the report' },
          { type: 'resource', resource: { uri: 'file:///notes.txt', mimeType: 'text/plain', text: 'embedded notes' } },
        ],
        structuredContent: { report: { pages: [1, 2, 3], title: 'Q3' } },
      }),
    }),
  ],
});
`;

describe('dashboard: a result rendered by content type', () => {
  let browser: Browser;
  let dev: Dev;

  beforeAll(async () => {
    [browser, dev] = await Promise.all([
      launchChromium(),
      startDev(['healthy'], { builtins: false }, async (root) => {
        await mkdir(path.join(root, 'plugins', 'media'));
        await writeFile(path.join(root, 'plugins', 'media', 'index.ts'), media);
      }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([browser?.close(), dev?.stop()]);
  });

  it('shows text, an image, an audio player, a link, an embedded resource and the structured content as a tree', async () => {
    const { page, close } = await openDashboard(browser, dev, '#/tool/media_all');
    await page.waitForSelector('#tool-form button[type="submit"]');
    await page.click('#tool-form button[type="submit"]');
    const result = page.locator('#call-result .call-result');
    await result.waitFor();
    expect(await result.getAttribute('data-status')).toBe('ok');

    expect(await result.locator('.content-text').textContent()).toBe('a text block');
    const image = result.locator('img.content-image');
    expect(await image.getAttribute('src')).toBe(`data:image/png;base64,${PNG}`);
    // The browser decoded it: a real image of 1×1, not a broken one.
    await expect
      .poll(() => image.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth))
      .toBe(1);
    expect(await result.locator('audio.content-audio').getAttribute('src')).toBe(
      `data:audio/wav;base64,${WAV}`,
    );
    const link = result.locator('.content-link a');
    expect(await link.getAttribute('href')).toBe('https://example.com/report.pdf');
    expect(await link.textContent()).toContain('report.pdf');
    expect(await result.locator('.content-resource').textContent()).toContain('embedded notes');
    const tree = await result.locator('.structured').textContent();
    for (const part of ['report', 'pages', 'title', 'Q3']) expect(tree).toContain(part);
    await close();
  });
});
