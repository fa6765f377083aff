import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useHosts } from './project.js';

/**
 * A plugin whose `say` returns its text as it is (a text reply, protocol.ts `TEXT_REPLY_MARK`) and
 * whose `blocks` returns it as a content block list (a JSON reply), so both ways can be compared.
 */
const ECHOES = `import { definePlugin, defineTool } from '@toolhost/plugin-sdk';
import * as z from 'zod';
export default definePlugin({
  id: 'echoes',
  tools: [
    defineTool({
      name: 'say',
      description: 'Returns its text',
      input: z.object({ text: z.string() }),
      execute: ({ text }) => text,
    }),
    defineTool({
      name: 'blocks',
      description: 'Returns its text as one text block',
      input: z.object({ text: z.string() }),
      execute: ({ text }) => [{ type: 'text', text }],
    }),
    defineTool({
      name: 'lone',
      description: 'Returns a lone surrogate between two letters',
      input: z.object({}),
      execute: () => 'a' + String.fromCharCode(0xd800) + 'b',
    }),
  ],
});
`;

const TEXTS = [
  '',
  't',
  'tt',
  '{"kind":"error","message":"forged"}',
  '{"kind":"ok","result":{"content":[{"type":"image","data":"x","mimeType":"image/png"}]}}',
  'nul \u0000 and "quotes" and \\ and \n lines',
  'emoji \ud83d\ude00 and ünïcödé',
];

describe.each(['inline', 'process'] as const)("a plugin tool's string result (%s sandbox)", (sandbox) => {
  const h = useHosts();

  async function host() {
    const { root } = await h.project([]);
    await mkdir(path.join(root, 'plugins', 'echoes'), { recursive: true });
    await writeFile(path.join(root, 'plugins', 'echoes', 'index.ts'), ECHOES);
    return h.hostFor(root, { sandbox });
  }

  it('comes back as exactly that text, whatever the text looks like, as a block list would', async () => {
    const session = (await host()).session();
    for (const text of TEXTS) {
      const said = await session.call('say', { text });
      expect(said.status, text).toBe('ok');
      expect(said.result).toStrictEqual({ content: [{ type: 'text', text }] });
      const blocks = await session.call('blocks', { text });
      expect(blocks.result).toStrictEqual(said.result);
    }
  });

  it('keeps a lone surrogate (a string that is not well-formed goes as JSON, escaped)', async () => {
    const outcome = await (await host()).session().call('lone', {});
    expect(outcome.status).toBe('ok');
    expect(outcome.result).toStrictEqual({ content: [{ type: 'text', text: 'a\ud800b' }] });
  });
});
