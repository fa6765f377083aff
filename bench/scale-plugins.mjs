// The generated plugins of bench/scale.mjs: one folder each with an index.ts of three tools, as a
// small service wrapper would look (zod inputs, descriptions, an async tool).
import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';

export function pluginSource(i, version = 'v0') {
  return `import { definePlugin, defineTool } from '@toolhost/plugin-sdk';
import * as z from 'zod';

let calls = 0;

export default definePlugin({
  id: 'p${i}',
  description: 'Generated plugin ${i} of the scale bench',
  tools: [
    defineTool({
      name: 'p${i}_echo',
      description: 'Echoes its text (plugin ${i}, version ${version};)',
      input: z.object({ text: z.string().describe('What to echo') }),
      annotations: { readOnlyHint: true },
      execute: ({ text }) => { calls += 1; return \`p${i}: \${text} (\${calls})\`; },
    }),
    defineTool({
      name: 'p${i}_search',
      description: 'Searches the records of service ${i} by query, with paging',
      input: z.object({
        query: z.string().min(1).describe('Words to look for'),
        limit: z.number().int().min(1).max(100).default(10),
        cursor: z.string().optional(),
      }),
      execute: async ({ query, limit }) => ({ query, items: Array.from({ length: Math.min(limit, 3) }, (_, k) => \`\${query}-\${k}\`) }),
    }),
    defineTool({
      name: 'p${i}_update',
      description: 'Updates a record of service ${i}',
      input: z.object({
        id: z.string(),
        fields: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
        mode: z.enum(['merge', 'replace']).default('merge'),
      }),
      annotations: { destructiveHint: true },
      execute: ({ id, mode }) => \`updated \${id} (\${mode})\`,
    }),
  ],
});
`;
}

/** Writes `count` plugins p0…p{count-1} under `<root>/plugins`. */
export async function writePlugins(root, count) {
  for (let i = 0; i < count; i++) {
    const dir = path.join(root, 'plugins', `p${i}`);
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'index.ts'), pluginSource(i));
  }
}
