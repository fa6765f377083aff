import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { project, startToolhost, toolhost } from './cli.js';

const rec = (time: string, principal: string, tool: string, status: string) =>
  `${JSON.stringify({ v: 1, time, type: 'call', principal, client: 'c', session: 's', request: '1', tool, status, durationMs: 2.4 })}\n`;

describe('toolhost audit', () => {
  it('merges every trail file in time order, filters, limits, and follows new records', async () => {
    const { root, dispose } = await project([], { builtins: false });
    const dir = path.join(root, '.toolhost', 'audit');
    await mkdir(dir, { recursive: true });
    await writeFile(
      path.join(dir, 'a-1.jsonl'),
      rec('2026-01-01T00:00:01.000Z', 'token:ci', 'notes_add', 'ok') +
        rec('2026-01-01T00:00:03.000Z', 'token:ci', 'deploy', 'tool-error'),
    );
    await writeFile(
      path.join(dir, 'a-1.1.jsonl'),
      rec('2026-01-01T00:00:00.000Z', 'oauth:alice', 'notes_add', 'ok'),
    );
    await writeFile(
      path.join(dir, 'b-2.jsonl'),
      rec('2026-01-01T00:00:02.000Z', 'oauth:alice', 'deploy', 'ok'),
    );
    try {
      const all = await toolhost(['audit', '--root', root]);
      expect(all.code).toBe(0);
      expect(all.stdout).toBe(
        [
          '2026-01-01T00:00:00.000Z oauth:alice c notes_add ok 2 ms',
          '2026-01-01T00:00:01.000Z token:ci c notes_add ok 2 ms',
          '2026-01-01T00:00:02.000Z oauth:alice c deploy ok 2 ms',
          '2026-01-01T00:00:03.000Z token:ci c deploy tool-error 2 ms',
          '',
        ].join('\n'),
      );
      const alice = await toolhost([
        'audit',
        '--principal',
        'oauth:alice',
        '--tool',
        'deploy',
        '--json',
        '--root',
        root,
      ]);
      expect(
        alice.stdout
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l).time),
      ).toEqual(['2026-01-01T00:00:02.000Z']);
      const last = await toolhost([
        'audit',
        '--limit',
        '1',
        '--since',
        '2026-01-01T00:00:01Z',
        '--root',
        root,
      ]);
      expect(last.stdout).toBe('2026-01-01T00:00:03.000Z token:ci c deploy tool-error 2 ms\n');
      // --since alone: only what is at or after it.
      const since = await toolhost(['audit', '--since', '2026-01-01T00:00:02Z', '--root', root]);
      expect(since.stdout).toBe(
        '2026-01-01T00:00:02.000Z oauth:alice c deploy ok 2 ms\n2026-01-01T00:00:03.000Z token:ci c deploy tool-error 2 ms\n',
      );
      const bad = await toolhost(['audit', '--type', 'nope', '--root', root]);
      expect(bad.code).toBe(2);

      const follow = startToolhost(['audit', '--follow', '--status', 'ok', '--limit', '1', '--root', root]);
      try {
        await follow.stderr.waitFor(/following the trail/);
        await appendFile(
          path.join(dir, 'a-1.jsonl'),
          rec('2026-01-01T00:00:04.000Z', 'token:ci', 'skipped', 'tool-error'),
        );
        await appendFile(
          path.join(dir, 'b-2.jsonl'),
          rec('2026-01-01T00:00:05.000Z', 'token:ci', 'fresh', 'ok'),
        );
        await follow.stdout.waitFor(/00:00:05\.000Z token:ci c fresh ok 2 ms\n/);
        expect(follow.stdout.text).not.toContain('skipped');
      } finally {
        expect(await follow.stop('SIGINT')).toBe(0);
      }
    } finally {
      await dispose();
    }
  });
});
