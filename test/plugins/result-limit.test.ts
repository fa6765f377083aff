import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { textOf, useHosts } from './project.js';

/** A plugin `sized` whose tool returns `count` copies of `unit` as its one text block. */
const SIZED = `import { definePlugin, defineTool } from '@toolhost/plugin-sdk';
import * as z from 'zod';
export default definePlugin({
  id: 'sized',
  tools: [defineTool({
    name: 'sized_text',
    description: 'Returns count copies of unit',
    input: z.object({ unit: z.string(), count: z.number().int() }),
    execute: ({ unit, count }) => unit.repeat(count),
  })],
});
`;

describe.each(['inline', 'process'] as const)("a plugin tool's maxResultChars (%s sandbox)", (sandbox) => {
  const h = useHosts();

  async function sizedProject(): Promise<string> {
    const { root } = await h.project([]);
    await mkdir(path.join(root, 'plugins', 'sized'), { recursive: true });
    await writeFile(path.join(root, 'plugins', 'sized', 'index.ts'), SIZED);
    return root;
  }

  /** A session of a host whose `sized` plugin may return 1,000 characters. */
  async function sizedSession() {
    const host = await h.hostFor(await sizedProject(), {
      sandbox,
      plugins: { sized: { limits: { maxResultChars: 1_000 } } },
    });
    return host.session();
  }

  it("counts the result's characters, not its JSON's: escaped characters are not counted twice", async () => {
    const session = await sizedSession();
    // 900 characters, whose JSON (every quote escaped) is over 1,800.
    const quotes = await session.call('sized_text', { unit: '"', count: 900 });
    expect(quotes.status).toBe('ok');
    expect(textOf(quotes.result)).toBe('"'.repeat(900));
    const over = await session.call('sized_text', { unit: 'x', count: 1_001 });
    expect(over.status).toBe('limit-exceeded');
    expect(textOf(over.result)).toBe(
      'Tool "sized_text" returned 1001 characters, over the limit maxResultChars (1000); raise plugins.sized.limits.maxResultChars in the config to allow more',
    );
  });

  it('is the one limit of its results: raised above limits.maxResultChars, it allows more', async () => {
    const root = await sizedProject();
    const host = await h.hostFor(root, {
      sandbox,
      limits: { maxResultChars: 100 },
      plugins: { sized: { limits: { maxResultChars: 1_000 } } },
    });
    const outcome = await host.session().call('sized_text', { unit: 'x', count: 500 });
    expect(outcome.status).toBe('ok');
    expect(textOf(outcome.result)).toHaveLength(500);
  });

  it('stops a returned string far over it inside the isolate, before copying it out, by its characters as they are', async () => {
    const session = await sizedSession();
    // The reply guard is 2 × 1,000 + 65,536 = 67,536 characters (replyCharsFor); a string's reply
    // is one mark character and the string.
    const guard =
      'its reply passed 67536 characters inside the isolate and was not copied out; raise plugins.sized.limits.maxResultChars in the config to allow more';
    const over = await session.call('sized_text', { unit: 'x', count: 67_536 });
    expect(over.status).toBe('limit-exceeded');
    expect(textOf(over.result)).toContain(guard);
    // One character less fits the guard: the result limit speaks, in the result's own characters.
    const under = await session.call('sized_text', { unit: 'x', count: 67_535 });
    expect(under.status).toBe('limit-exceeded');
    expect(textOf(under.result)).toContain('returned 67535 characters, over the limit maxResultChars (1000)');
    // Characters JSON would escape count once: 40,000 quotes are 40,000 characters, under the guard.
    const quoted = await session.call('sized_text', { unit: '"', count: 40_000 });
    expect(textOf(quoted.result)).toContain(
      'returned 40000 characters, over the limit maxResultChars (1000)',
    );
  });
});
