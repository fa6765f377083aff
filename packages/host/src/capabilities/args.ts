/**
 * Schemas of the arguments the in-isolate runtime sends (see `plugin-sdk/src/runtime/index.ts`,
 * `contextFor`). The arguments are untrusted JSON written by plugin code: objects are strict,
 * strings are bounded, and the parsed value is a fresh object, never the one that came in.
 */

import * as z from 'zod';
import { raiseHint } from '../config/limits.js';
import { clip } from '../util/text.js';
import { issuePath } from '../util/zod-issues.js';
import { invalidArgs } from './errors.js';
import type { CapabilityLimits } from './types.js';

const MAX_PATH_CHARS = 4096;
export const MAX_URL_CHARS = 8192;
const MAX_HEADERS = 64;
const MAX_HEADER_NAME_CHARS = 256;
const MAX_HEADER_VALUE_CHARS = 8192;
/** Paths and messages of an invalid-args error can carry keys the plugin chose: kept this short. */
const MAX_ISSUE_CHARS = 120;
/** An HTTP field name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

const pathSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(MAX_PATH_CHARS)
  .refine((value) => !value.includes('\0'), 'must not contain a NUL byte');

export const pathArgs = z.strictObject({ path: pathSchema });
export const mkdirArgs = z.strictObject({ path: pathSchema, recursive: z.boolean().optional() });
export const rmArgs = z.strictObject({
  path: pathSchema,
  recursive: z.boolean().optional(),
  force: z.boolean().optional(),
});
export const renameArgs = z.strictObject({ from: pathSchema, to: pathSchema });

export function writeFileArgs(limits: CapabilityLimits) {
  return z.strictObject({
    path: pathSchema,
    // Characters bound bytes from below; fs.ts checks the exact UTF-8 size against the same limit.
    data: z.string().max(limits.fsMaxBytes, `is over the fsMaxBytes limit of ${limits.fsMaxBytes} bytes`),
  });
}

const headers = z.preprocess(
  (value, ctx) => {
    // A record schema skips an own `__proto__` key without a word; refuse it instead.
    if (typeof value === 'object' && value !== null && Object.hasOwn(value, '__proto__')) {
      ctx.addIssue({ code: 'custom', message: '"__proto__" is not a valid header name' });
    }
    return value;
  },
  z
    .record(
      z.string().max(MAX_HEADER_NAME_CHARS).regex(HEADER_NAME, 'is not a valid header name'),
      z.string().max(MAX_HEADER_VALUE_CHARS),
    )
    .refine((record) => Object.keys(record).length <= MAX_HEADERS, `at most ${MAX_HEADERS} headers`),
);

export function fetchArgs(limits: CapabilityLimits, pluginId: string) {
  return z.strictObject({
    url: z.string().min(1, 'must not be empty').max(MAX_URL_CHARS),
    options: z
      .strictObject({
        method: z.string().max(16).optional(),
        headers: headers.optional(),
        body: z
          .string()
          .max(
            limits.fetchMaxBytes,
            `is over the fetchMaxBytes limit of ${limits.fetchMaxBytes} bytes; ${raiseHint(pluginId, 'fetchMaxBytes')}`,
          )
          .optional(),
      })
      .nullish(),
  });
}

export type FetchArgs = z.output<ReturnType<typeof fetchArgs>>;

/** Parses `args` or throws an `invalid-args` error listing the first few problems, each bounded. */
export function parseArgs<T>(capability: string, schema: z.ZodType<T>, args: unknown): T {
  const parsed = schema.safeParse(args);
  if (parsed.success) return parsed.data;
  const detail = parsed.error.issues
    .slice(0, 5)
    .map((issue) => {
      // A bad record key nests the reason one level down.
      const nested = issue.code === 'invalid_key' ? issue.issues[0]?.message : undefined;
      const message = nested === undefined ? issue.message : `${issue.message}: ${nested}`;
      return `${clip(issuePath(issue.path), MAX_ISSUE_CHARS)}: ${clip(message, MAX_ISSUE_CHARS)}`;
    })
    .join('; ');
  throw invalidArgs(capability, detail);
}
