/** The config schema's `builtins` and `mcpServers.<id>` (see schema.ts): the tools the host runs itself or bridges. */
import * as z from 'zod';
import { ms, names, processSandbox } from './schema-parts.js';

const exec = z.strictObject({
  enabled: z.boolean().optional().describe('The exec tool exists only when true'),
  timeoutMs: ms('Wall-clock limit of one command; replaces limits.timeoutMs (default: limits.timeoutMs)'),
  maxOutputBytes: z.number().int().positive().optional(),
  allowedCommands: names.optional().describe('When present, only these programs may run'),
  sandbox: processSandbox.optional(),
});

const grep = z.strictObject({
  searchBudgetMs: ms('Wall-clock budget of one grep search; it then returns what it found (default 10000)'),
  fileBudgetMs: ms(
    'Longest one file may take to match before grep switches to its linear-time engine (default 500)',
  ),
});

export const builtins = z.union([
  z.boolean(),
  z.strictObject({
    enabled: z.boolean().optional(),
    maxReadBytes: z.number().int().positive().optional(),
    exec: exec.optional(),
    controlFiles: z
      .strictObject({
        config: z
          .enum(['none', 'read', 'write'])
          .optional()
          .describe(
            "The config file: 'none' (default; it may hold secrets), 'read', or 'write' (the model can change its own policy)",
          ),
        plugins: z
          .enum(['read', 'write'])
          .optional()
          .describe(
            "The plugins folder: 'read' (default) or 'write' (the model may author plugins the host loads)",
          ),
        skills: z
          .enum(['read', 'write'])
          .optional()
          .describe(
            "The skills folder: 'read' (default) or 'write' (the model may author skills later prompts list)",
          ),
      })
      .optional()
      .describe('What read/write/edit may do with the host control files; .toolhost/ is never writable'),
    grep: grep.optional(),
  }),
]);

export const mcpServer = z.union([
  z.strictObject({
    command: z.string().min(1),
    args: z.array(z.string()).optional(),
    env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().optional(),
    sandbox: processSandbox.optional(),
  }),
  z.strictObject({
    url: z.url(),
    headers: z.record(z.string(), z.string()).optional(),
    net: names
      .optional()
      .describe(
        'Loopback or private addresses the URL may connect to ("127.0.0.1:8080", "localhost:8080"), as plugins\' grants.net names them; none by default',
      ),
  }),
]);
