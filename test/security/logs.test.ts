/**
 * Log lines are capped: one call once pushed 354 MB of lines in 2 s, one of them 32 MB. Caps hold
 * per call (lines, bytes), per line, and per plugin per minute (`limits.logs`); what is dropped is
 * counted and said in one marker line. The isolate's runtime cuts first, where it is cheap; the
 * host cuts again (packages/host/test/sandbox/call-handlers.test.ts feeds it lines directly).
 */
import { describe, expect, it } from 'vitest';
import { attackPlugin, expectHealthy, HEALTHY_SOURCE, textOf, useHarness } from './helpers.js';

/** What an observer of the calls heard. */
function listener() {
  const lines: { level: string; message: string; data: unknown }[] = [];
  const observer = {
    log: (level: string, message: string, data?: unknown) => lines.push({ level, message, data }),
  };
  const bytes = () =>
    lines.reduce(
      (sum, line) =>
        sum +
        Buffer.byteLength(line.message) +
        (line.data === undefined ? 0 : Buffer.byteLength(JSON.stringify(line.data))),
      0,
    );
  return { lines, observer, bytes };
}

describe('log caps', () => {
  const h = useHarness();

  it('a call logging 100,000 lines delivers linesPerCall of them, the last one saying how many were dropped', async () => {
    const { session } = await h.start({
      plugins: {
        chatty: attackPlugin(
          'chatty',
          `for (let i = 0; i < 100_000; i++) console.log('line ' + i); return 'done';`,
        ),
        healthy: HEALTHY_SOURCE,
      },
      logs: { linesPerCall: 100 },
    });
    const { lines, observer } = listener();
    expect(textOf(await session.call('attack', {}, undefined, { observer }))).toBe('done');
    expect(lines).toHaveLength(100);
    expect(lines[0]?.message).toBe('line 0');
    expect(lines[98]?.message).toBe('line 98');
    expect(lines[99]).toMatchObject({
      level: 'warn',
      message: '[99901 log lines of this call dropped: over limits.logs.linesPerCall (100)]',
    });
    await expectHealthy(session);
  });

  it('one line of 4 MB arrives cut at lineBytes, saying so', async () => {
    const { session } = await h.start({
      plugins: {
        chatty: attackPlugin(
          'chatty',
          `console.log('x'.repeat(4_000_000)); ctx.log.info('é'.repeat(3000)); return 'done';`,
        ),
      },
      logs: { lineBytes: 1000 },
    });
    const { lines, observer } = listener();
    expect(textOf(await session.call('attack', {}, undefined, { observer }))).toBe('done');
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      expect(Buffer.byteLength(line.message)).toBeLessThanOrEqual(1000);
      expect(line.message).toMatch(/… \[cut at limits\.logs\.lineBytes \(1000\)\]$/);
    }
    expect(lines[0]?.message.startsWith('xxxxxxxx')).toBe(true);
  });

  it("a log line's data over lineBytes is dropped (not copied out), the line saying so", async () => {
    const { session } = await h.start({
      plugins: {
        chatty: attackPlugin(
          'chatty',
          `ctx.log.info('big data', { blob: 'y'.repeat(2_000_000) }); ctx.log.info('small data', { n: 1 }); return 'done';`,
        ),
      },
      logs: { lineBytes: 1000 },
    });
    const { lines, observer } = listener();
    await session.call('attack', {}, undefined, { observer });
    expect(lines).toEqual([
      { level: 'info', message: 'big data', data: '[data over limits.logs.lineBytes (1000) dropped]' },
      { level: 'info', message: 'small data', data: { n: 1 } },
    ]);
  });

  it('lines past bytesPerCall are dropped and counted', async () => {
    const { session } = await h.start({
      plugins: {
        chatty: attackPlugin(
          'chatty',
          `for (let i = 0; i < 5000; i++) console.log('z'.repeat(1000)); return 'done';`,
        ),
      },
      logs: { bytesPerCall: 100_000 },
    });
    const { lines, observer, bytes } = listener();
    await session.call('attack', {}, undefined, { observer });
    expect(bytes()).toBeLessThanOrEqual(100_000);
    expect(lines.length).toBeGreaterThan(90);
    expect(lines.at(-1)?.message).toMatch(
      /^\[\d{4} log lines of this call dropped: over limits\.logs\.bytesPerCall \(100000\)\]$/,
    );
  });

  it('a plugin over linesPerMinute has its further lines dropped across calls, each call saying how many', async () => {
    const { session } = await h.start({
      plugins: {
        chatty: attackPlugin(
          'chatty',
          `for (let i = 0; i < 40; i++) console.log('line ' + i); return 'done';`,
        ),
      },
      logs: { linesPerMinute: 50 },
    });
    const first = listener();
    await session.call('attack', {}, undefined, { observer: first.observer });
    expect(first.lines).toHaveLength(40);
    const second = listener();
    await session.call('attack', {}, undefined, { observer: second.observer });
    expect(second.lines).toHaveLength(11);
    expect(second.lines.at(-1)).toMatchObject({
      level: 'warn',
      message: '[30 log lines of this call dropped: plugin "chatty" is over limits.logs.linesPerMinute (50)]',
    });
  });
});
