import type { CallReply, HookReply } from '@toolhost/plugin-sdk/protocol';
import * as z from 'zod';

/**
 * Schemas of what comes back from a plugin's isolate. The runtime in there shares its realm with
 * plugin code, so its replies are untrusted data: checked here before the host reads a field.
 */

const text = z.string();

export const contentBlockSchema = z.union([
  z.object({ type: z.literal('text'), text }),
  z.object({ type: z.literal('image'), data: text, mimeType: text }),
  z.object({ type: z.literal('audio'), data: text, mimeType: text }),
  z.object({
    type: z.literal('resource'),
    resource: z.union([
      z.object({ uri: text, mimeType: text.optional(), text }),
      z.object({ uri: text, mimeType: text.optional(), blob: text }),
    ]),
  }),
  z.object({
    type: z.literal('resource_link'),
    uri: text,
    name: text,
    title: text.optional(),
    description: text.optional(),
    mimeType: text.optional(),
    size: z.number().optional(),
  }),
]);

const structured = z.record(z.string(), z.unknown());

export const toolResultSchema = z.object({
  content: z.array(contentBlockSchema),
  isError: z.boolean().optional(),
  structuredContent: structured.optional(),
});

const issues = z.array(z.object({ path: text, message: text })).max(1_000);
const failure = [
  z.object({ kind: z.literal('error'), message: text }),
  z.object({ kind: z.literal('too-large'), size: z.number() }),
] as const;

export const callReplySchema: z.ZodType<CallReply> = z.union([
  z.object({ kind: z.literal('ok'), result: toolResultSchema }),
  z.object({ kind: z.literal('valid') }),
  z.object({ kind: z.literal('invalid-input'), issues }),
  z.object({ kind: z.literal('invalid-config'), issues }),
  z.object({ kind: z.literal('unknown-tool') }),
  ...failure,
]) as z.ZodType<CallReply>;

export const hookReplySchema: z.ZodType<HookReply> = z.union([
  z.object({ kind: z.literal('ok'), verdict: z.unknown() }),
  ...failure,
]) as z.ZodType<HookReply>;

export const beforeVerdictSchema = z.union([
  z.null(),
  z.strictObject({ input: z.unknown() }),
  z.strictObject({ block: z.literal(true), reason: z.string().max(10_000) }),
]);

export const afterVerdictSchema = z.union([
  z.null(),
  z.strictObject({
    content: z.array(contentBlockSchema).optional(),
    structuredContent: structured.optional(),
    isError: z.boolean().optional(),
  }),
]);
