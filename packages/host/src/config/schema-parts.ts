/** The pieces several parts of the config schema (schema.ts) are made of. */
import * as z from 'zod';
import { MAX_TIMER_MS } from '../util/timers.js';

export const names = z.array(z.string().min(1)).describe('names or patterns');

/** A duration a timer can hold (see limits.ts for how the limits combine). */
export const ms = (what: string) =>
  z.number().int().positive().max(MAX_TIMER_MS).optional().describe(`${what}, ms`);
/** A positive count or size. */
export const count = (what: string) => z.number().int().positive().optional().describe(what);

/** A `{read, write}` pair of path lists, as plugins' grants and process jails both take it. */
const readWrite = (read: string, write: string) =>
  z
    .strictObject({
      read: names.optional().describe(read),
      write: names.optional().describe(write),
    })
    .optional();

export const sandboxMode = z
  .enum(['process', 'inline'])
  .describe("'process': isolates in a supervised, jailed executor process; 'inline': in the host process");

export const grants = z
  .strictObject({
    net: names
      .optional()
      .describe(
        'Hosts ctx.fetch may reach ("api.example.com", "*.example.com", "127.0.0.1:8080"); it connects to a ' +
          'loopback, private or other special-purpose address only when listed here by IP (or as localhost)',
      ),
    fs: readWrite(
      'Folders (relative to the project root) ctx.fs may read',
      'Folders ctx.fs may write (and read)',
    ),
    env: names.optional().describe('Environment variables ctx.env.get may read'),
  })
  .describe('What the operator grants; a capability needs the plugin to declare it too');

export const processSandbox = z
  .union([
    z.boolean(),
    z.strictObject({
      net: names
        .optional()
        .describe("Hosts it may connect to, through the jail's proxy; the rules of plugins' grants.net"),
      fs: readWrite(
        'Paths (relative to the project root, or absolute) it may read',
        'Paths it may write (and read); control files stay read-only',
      ),
      env: names.optional().describe("Variables of the host's environment it receives"),
    }),
  ])
  .describe(
    "The OS jail around the process (default true: jailed by sandbox.jail's rule); false runs it unjailed, with the user's reach; an object grants paths, hosts and variables",
  );
