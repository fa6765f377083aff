import type { CallReply, HookReply } from '@toolhost/plugin-sdk/protocol';
import * as z from 'zod';
import { contentBlockSchema, structured, toolResultSchema } from '../../core/wrap/result-schema.js';

/**
 * Schemas of what comes back from a plugin's isolate. The runtime in there shares its realm with
 * plugin code, so its replies are untrusted data: checked here before the host reads a field.
 */

const text = z.string();

const issues = z.array(z.object({ path: text, message: text })).max(1_000);
const failure = [
  z.object({ kind: z.literal('error'), message: text }),
  z.object({ kind: z.literal('too-large'), size: z.number() }),
] as const;

export const callReplySchema: z.ZodType<CallReply> = z.union([
  z.object({ kind: z.literal('ok'), result: toolResultSchema }),
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
  // Checked again by the wrapper like a host hook's ask; the sizes keep the approver's view sane.
  z.strictObject({
    requireApproval: z.strictObject({
      title: z.string().min(1).max(500),
      description: z.string().max(10_000).optional(),
      severity: z.enum(['info', 'warning', 'critical']).optional(),
      timeoutMs: z.number().int().positive().optional(),
    }),
    input: z.unknown().optional(),
  }),
]);

export const afterVerdictSchema = z.union([
  z.null(),
  z.strictObject({
    content: z.array(contentBlockSchema).optional(),
    structuredContent: structured.optional(),
    isError: z.boolean().optional(),
  }),
]);
