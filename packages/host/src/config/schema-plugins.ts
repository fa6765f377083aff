/** The config schema's `plugins.<id>` entry (see schema.ts). */
import * as z from 'zod';
import { grants, ms, names } from './schema-parts.js';

export const pluginLimits = z.strictObject({
  memoryMb: z.number().int().min(8).max(8192).optional().describe('Isolate heap limit, MB (default 64)'),
  timeoutMs: ms(
    "Wall-clock limit of one of the plugin's calls; replaces limits.timeoutMs (default: limits.timeoutMs)",
  ),
  cpuMs: ms('CPU time of one call inside the isolate (default 10000)'),
  maxResultChars: z
    .number()
    .int()
    .positive()
    .optional()
    .describe('Largest result, characters (default 4000000)'),
  fetchTimeoutMs: ms(
    'Wall-clock limit of one ctx.fetch, every redirect and the body included (default 10000)',
  ),
  fetchMaxBytes: z
    .number()
    .int()
    .positive()
    .optional()
    .describe('Largest request body and largest response body of ctx.fetch, bytes (default 5242880)'),
  fsConcurrency: z
    .number()
    .int()
    .min(1)
    .max(64)
    .optional()
    .describe("The plugin's ctx.fs operations running at once; more wait their turn (default 2)"),
  fetchConcurrency: z
    .number()
    .int()
    .positive()
    .max(1024)
    .optional()
    .describe('ctx.fetch requests of the plugin in flight at once; more wait their turn (default 8)'),
});

export const pluginSettings = z.strictObject({
  enabled: z.boolean().optional().describe('false hides every tool of the plugin (default true)'),
  config: z.unknown().optional().describe("The plugin's own config, validated against its schema"),
  grants: grants.optional(),
  limits: pluginLimits.optional(),
  hooks: z.enum(['own', 'all']).optional().describe("Which calls the plugin's hooks see (default 'own')"),
  overrides: names
    .optional()
    .describe("Built-in tools (exact names) the plugin's tools of the same name replace; meta tools never"),
});
