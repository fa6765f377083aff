/** A plugin entry with one tool `<id>_tool`; `before` is module code that runs first (a spin, say). */
export function pluginSource(id: string, before = ''): string {
  return `import { definePlugin, defineTool } from '@toolhost/plugin-sdk';
import * as z from 'zod';
${before}
export default definePlugin({
  id: ${JSON.stringify(id)},
  tools: [defineTool({ name: '${id}_tool', description: 'test tool', input: z.object({}), execute: () => '${id}' })],
});
`;
}
