import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  descriptionTooLong,
  MAX_DESCRIPTION_CHARS,
  MAX_TOOLS_PER_PLUGIN,
  TOOL_NAME_PATTERN,
  tooManyTools,
} from '@toolhost/plugin-sdk';
import type { DescribeReply, PluginManifest } from '@toolhost/plugin-sdk/protocol';
import * as z from 'zod';
import { sha256 } from './cache.js';

let rules: string | undefined;

/**
 * A fingerprint of the checks `parseDescribeReply` makes: the sha256 of this module's own code
 * (the limits and names it takes from the SDK are in the cache key already, through the
 * prelude's fingerprint). The manifest cache keeps the checks' conclusions and keys on it, so a
 * manifest checked by other code is checked again; no version to remember to bump. Read once per
 * process; a module that cannot be read gets a fingerprint of its own, matching no file.
 */
export function manifestRules(): string {
  if (rules === undefined) {
    try {
      rules = sha256(readFileSync(fileURLToPath(import.meta.url), 'utf8'));
    } catch {
      rules = `unreadable-${randomUUID()}`;
    }
  }
  return rules;
}

const text = (max: number) => z.string().max(max);
const jsonObject = z.record(z.string(), z.unknown());
const names = z.array(text(256)).max(256);

const signal = z.union([
  z.strictObject({ kind: z.literal('always') }),
  z.strictObject({ kind: z.literal('auth'), providerId: text(256) }),
  z.strictObject({
    kind: z.literal('config'),
    path: text(512),
    check: z.enum(['exists', 'non-empty']).optional(),
  }),
  z.strictObject({ kind: z.literal('env'), name: text(256) }),
  z.strictObject({ kind: z.literal('plugin-enabled'), pluginId: text(64) }),
  z.strictObject({
    kind: z.literal('context'),
    key: text(256),
    equals: z.union([z.string(), z.number(), z.boolean()]).optional(),
  }),
]);
type Expression = z.infer<typeof signal> | { allOf: Expression[] } | { anyOf: Expression[] };
// JSON cannot hold a cycle, so the depth of what crosses is bounded by its size; groups may be
// empty here: the planner reports that as unsupported-signal with a clear message.
const expression: z.ZodType<Expression> = z.lazy(() =>
  z.union([
    signal,
    z.strictObject({ allOf: z.array(expression).max(64) }),
    z.strictObject({ anyOf: z.array(expression).max(64) }),
  ]),
);

const toolManifest = z.strictObject({
  name: z.string().regex(TOOL_NAME_PATTERN, 'tool names use 1-64 letters, digits, "_" or "-"'),
  title: text(256).optional(),
  description: text(MAX_DESCRIPTION_CHARS),
  inputSchema: jsonObject,
  outputSchema: jsonObject.optional(),
  annotations: z
    .strictObject({
      title: text(256).optional(),
      readOnlyHint: z.boolean().optional(),
      destructiveHint: z.boolean().optional(),
      idempotentHint: z.boolean().optional(),
      openWorldHint: z.boolean().optional(),
    })
    .optional(),
  availability: expression.optional(),
  sortKey: text(256).optional(),
  deferLoading: z.boolean().optional(),
  requireApproval: z
    .union([
      z.literal(true),
      z.strictObject({
        reason: text(1024).optional(),
        severity: z.enum(['info', 'warning', 'critical']).optional(),
      }),
    ])
    .optional(),
});

const manifestSchema = z.strictObject({
  id: text(64),
  version: text(64).optional(),
  description: text(MAX_DESCRIPTION_CHARS).optional(),
  permissions: z.strictObject({
    net: names.optional(),
    fs: z.strictObject({ read: names.optional(), write: names.optional() }).optional(),
    env: names.optional(),
  }),
  tools: z.array(toolManifest).max(MAX_TOOLS_PER_PLUGIN),
  hooks: z.strictObject({ before: z.boolean(), after: z.boolean() }),
  configIssues: z.array(z.strictObject({ path: text(1024), message: text(4096) })).optional(),
  configSchema: z.record(z.string(), z.unknown()).optional(),
});

const replySchema = z.union([
  z.strictObject({ ok: z.literal(true), manifest: z.unknown() }),
  z.strictObject({
    ok: z.literal(false),
    error: text(100_000),
    // Names are a courtesy (each is listed as hidden): too many, or odd ones, are dropped, not fatal.
    toolNames: z.array(text(256)).max(MAX_TOOLS_PER_PLUGIN).optional().catch(undefined),
  }),
]);

/**
 * The size limits, checked before the schema so that a plugin over one gets an error naming the
 * limit and by how much, not a schema path. Returns the error and the tool names worth listing.
 */
function overLimits(manifest: unknown): { error: string; toolNames?: string[] } | undefined {
  if (typeof manifest !== 'object' || manifest === null) return undefined;
  const { tools, description } = manifest as { tools?: unknown; description?: unknown };
  if (typeof description === 'string' && description.length > MAX_DESCRIPTION_CHARS)
    return { error: descriptionTooLong('the plugin', description.length) };
  if (!Array.isArray(tools)) return undefined;
  // Too many to list each one as hidden: the plugin is listed once.
  if (tools.length > MAX_TOOLS_PER_PLUGIN) return { error: tooManyTools('the plugin', tools.length) };
  const named = tools.map((tool) => (tool as { name?: unknown } | null)?.name);
  const tooLong = tools.flatMap((tool, i) => {
    const text = (tool as { description?: unknown } | null)?.description;
    return typeof text === 'string' && text.length > MAX_DESCRIPTION_CHARS
      ? [descriptionTooLong(`tool ${JSON.stringify(String(named[i]))}`, text.length)]
      : [];
  });
  if (tooLong.length === 0) return undefined;
  const toolNames = named.filter((n): n is string => typeof n === 'string' && TOOL_NAME_PATTERN.test(n));
  const more = tooLong.length > 3 ? `; and ${tooLong.length - 3} more tools like these` : '';
  return { error: tooLong.slice(0, 3).join('; ') + more, toolNames };
}

/**
 * Model APIs take a tool's input as a JSON object, and an adapter that only adds a missing
 * `type: 'object'` would pass any other type through: `type` must be `'object'` or absent (then
 * it is set). Own property only: the schema is parsed JSON, but `__proto__` keys survive a copy.
 */
function isObjectSchema(schema: Record<string, unknown>): boolean {
  return !Object.hasOwn(schema, 'type') || schema.type === 'object';
}

/**
 * Checks what a plugin's isolate says about itself. It is untrusted data: anything off the
 * expected shape is a load failure whose message says where, never a crash or a hang.
 */
export function parseDescribeReply(raw: unknown): DescribeReply {
  const reply = replySchema.safeParse(raw);
  if (!reply.success)
    return { ok: false, error: `the plugin's description is malformed: ${z.prettifyError(reply.error)}` };
  if (!reply.data.ok) {
    const { toolNames, error } = reply.data;
    return toolNames === undefined ? { ok: false, error } : { ok: false, error, toolNames };
  }
  const over = overLimits(reply.data.manifest);
  if (over !== undefined) return { ok: false, ...over };
  const manifest = manifestSchema.safeParse(reply.data.manifest);
  if (!manifest.success) {
    return { ok: false, error: `the plugin's description is invalid: ${z.prettifyError(manifest.error)}` };
  }
  const seen = new Set<string>();
  for (const tool of manifest.data.tools) {
    if (seen.has(tool.name)) return { ok: false, error: `the plugin declares the tool "${tool.name}" twice` };
    seen.add(tool.name);
  }
  const notObject = manifest.data.tools.find((tool) => !isObjectSchema(tool.inputSchema));
  if (notObject !== undefined) {
    return {
      ok: false,
      error:
        `tool "${notObject.name}" declares an inputSchema of type ${JSON.stringify(notObject.inputSchema.type)}; ` +
        `a tool's input must be an object schema ("type": "object", or no "type"): use z.object({...}) as its input`,
      toolNames: manifest.data.tools.map((tool) => tool.name),
    };
  }
  const tools = manifest.data.tools.map((tool) =>
    tool.inputSchema.type === 'object'
      ? tool
      : { ...tool, inputSchema: { ...tool.inputSchema, type: 'object' } },
  );
  return { ok: true, manifest: { ...manifest.data, tools } as PluginManifest };
}
