import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useHosts } from './project.js';

const h = useHosts();

const source = `import { definePlugin, defineTool } from '@toolhost/plugin-sdk';
import * as z from 'zod';
export default definePlugin({
  id: 'rare',
  tools: [
    defineTool({ name: 'rare_often', description: 'Used every turn', input: z.object({}), execute: () => 'often' }),
    defineTool({ name: 'rare_seldom', description: 'Archive an old project', input: z.object({}),
      deferLoading: true, execute: () => 'seldom' }),
  ],
});
`;

describe("a plugin tool's deferLoading", () => {
  it('crosses the isolate boundary: the tool is deferred, found by tool_search and callable', async () => {
    const { root } = await h.project([]);
    await mkdir(path.join(root, 'plugins', 'rare'));
    await writeFile(path.join(root, 'plugins', 'rare', 'index.ts'), source);
    const host = await h.hostFor(root, { configFile: false });
    const session = host.session();
    expect(session.deferredTools()).toEqual(['rare_seldom']);
    expect(session.tools('mcp').map((t) => t.name)).toEqual(['rare_often', 'tool_search', 'call_tool']);
    expect(session.search('archive project').map((hit) => hit.name)).toEqual(['rare_seldom']);
    expect((await session.call('rare_seldom', {})).result.content).toEqual([
      { type: 'text', text: 'seldom' },
    ]);
  });
});
