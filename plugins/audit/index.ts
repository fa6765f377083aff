import { definePlugin, defineTool, type ToolResult } from '@toolhost/plugin-sdk';
import * as z from 'zod';

/**
 * Plugin hooks with a config schema. `beforeToolCall` blocks a call whose input mentions one of
 * `config.blockedWords` (case-insensitive); `afterToolCall` appends a `[tag] …` line to text
 * results. By default a plugin's hooks see only its own tools' calls (here `audit_echo`); with
 * `plugins.audit.hooks: 'all'` they see every call the host makes.
 *
 *   plugins.audit.config = { blockedWords: ['password'], tag: 'audit' }
 *
 * An invalid config (say, `blockedWords: 'password'`) keeps the plugin from loading: its tools
 * are hidden with a diagnostic naming `plugins.audit.config.blockedWords`.
 */

const config = z
  .object({
    blockedWords: z
      .array(z.string().trim().min(1, { error: 'a blocked word must not be empty' }), {
        error: 'blockedWords must be a list of words',
      })
      .default([])
      .describe('Calls whose input contains one of these (case-insensitive) are blocked'),
    tag: z
      .string({ error: 'tag must be a string' })
      .regex(/^[\w.-]{1,32}$/, { error: 'tag must be 1-32 letters, digits, "_", "-" or "."' })
      .default('audit')
      .describe('The label of the line appended to results'),
  })
  .prefault({});

/** The first blocked word in the input's JSON, compared in lower case. */
function blockedWordIn(input: unknown, words: readonly string[]): string | undefined {
  const text = (JSON.stringify(input) ?? '').toLowerCase();
  return words.find((word) => text.includes(word.toLowerCase()));
}

const hasText = (result: ToolResult) => result.content.some((block) => block.type === 'text');

const auditEcho = defineTool({
  name: 'audit_echo',
  title: 'Echo',
  description:
    'Returns the given text unchanged. Useful to check what the audit hooks do: calls mentioning ' +
    'a blocked word are refused, and results get an audit line.',
  input: z.object({
    text: z
      .string({ error: 'text must be a string' })
      .max(10_000, { error: 'text must be at most 10000 characters' })
      .describe('The text to echo'),
  }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  execute: ({ text }) => text,
});

export default definePlugin({
  id: 'audit',
  version: '1.0.0',
  description: 'Blocks calls that mention blocked words and tags tool results',
  config,
  tools: [auditEcho],
  hooks: {
    beforeToolCall(event, ctx) {
      const word = blockedWordIn(event.input, ctx.config.blockedWords);
      if (word === undefined) return undefined;
      ctx.log.warn(`blocked ${event.toolName}`, { word });
      return {
        block: true,
        reason: `its input contains the blocked word "${word}" (plugins.audit.config.blockedWords)`,
      };
    },
    afterToolCall(event, ctx) {
      const { result } = event;
      if (!hasText(result)) return undefined;
      const outcome = result.isError === true ? 'failed' : 'ok';
      return {
        content: [
          ...result.content,
          { type: 'text', text: `[${ctx.config.tag}] ${event.toolName} ${outcome}` },
        ],
      };
    },
  },
});
