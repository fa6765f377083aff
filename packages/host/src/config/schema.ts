import * as z from 'zod';

/**
 * `toolhost.config.json`, validated with zod. The JSON Schema shipped beside the package
 * (`toolhost.config.schema.json`) is generated from this same schema, so editors complete and
 * check exactly what the host accepts. Unknown keys are errors everywhere: a typo never passes
 * silently.
 */

const names = z.array(z.string().min(1)).describe('names or patterns');

const grants = z
  .strictObject({
    net: names
      .optional()
      .describe('Hosts ctx.fetch may reach ("api.example.com", "*.example.com", "127.0.0.1:8080")'),
    fs: z
      .strictObject({
        read: names.optional().describe('Folders (relative to the project root) ctx.fs may read'),
        write: names.optional().describe('Folders ctx.fs may write (and read)'),
      })
      .optional(),
    env: names.optional().describe('Environment variables ctx.env.get may read'),
  })
  .describe('What the operator grants; a capability needs the plugin to declare it too');

const pluginLimits = z.strictObject({
  memoryMb: z.number().int().min(8).max(8192).optional().describe('Isolate heap limit, MB (default 64)'),
  timeoutMs: z
    .number()
    .int()
    .positive()
    .optional()
    .describe('Wall-clock limit of one call, ms (default 30000)'),
  cpuMs: z.number().int().positive().optional().describe('CPU time of one call, ms (default 10000)'),
  maxResultChars: z
    .number()
    .int()
    .positive()
    .optional()
    .describe('Largest result, characters (default 4000000)'),
});

const pluginSettings = z.strictObject({
  enabled: z.boolean().optional().describe('false hides every tool of the plugin (default true)'),
  config: z.unknown().optional().describe("The plugin's own config, validated against its schema"),
  grants: grants.optional(),
  limits: pluginLimits.optional(),
  hooks: z.enum(['own', 'all']).optional().describe("Which calls the plugin's hooks see (default 'own')"),
});

const exec = z.strictObject({
  enabled: z.boolean().optional().describe('The exec tool exists only when true'),
  timeoutMs: z.number().int().positive().optional(),
  maxOutputBytes: z.number().int().positive().optional(),
  allowedCommands: names.optional().describe('When present, only these programs may run'),
});

const grep = z.strictObject({
  searchBudgetMs: z
    .number()
    .int()
    .positive()
    .optional()
    .describe('Wall-clock budget of one grep search, ms; it then returns what it found (default 10000)'),
  fileBudgetMs: z
    .number()
    .int()
    .positive()
    .optional()
    .describe(
      'Longest one file may take to match before grep switches to its linear-time engine (default 500)',
    ),
});

const builtins = z.union([
  z.boolean(),
  z.strictObject({
    enabled: z.boolean().optional(),
    maxReadBytes: z.number().int().positive().optional(),
    exec: exec.optional(),
    grep: grep.optional(),
  }),
]);

const mcpServer = z.union([
  z.strictObject({
    command: z.string().min(1),
    args: z.array(z.string()).optional(),
    env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().optional(),
  }),
  z.strictObject({
    url: z.url(),
    headers: z.record(z.string(), z.string()).optional(),
  }),
]);

export const configSchema = z
  .strictObject({
    $schema: z.string().optional(),
    builtins: builtins.optional().describe('Built-in tools: true/false, or options'),
    tools: z
      .strictObject({
        allow: names
          .optional()
          .describe('When present, only matching tools exist (names, * wildcards, group:...)'),
        deny: names.optional().describe('Matching tools never exist; deny wins over allow'),
      })
      .optional(),
    plugins: z.record(z.string(), pluginSettings).optional().describe('Per plugin, by id'),
    limits: z
      .strictObject({
        timeoutMs: z.number().int().positive().optional().describe('Wall-clock limit of every call, ms'),
        hookTimeoutMs: z.number().int().positive().optional(),
        maxResultChars: z.number().int().positive().optional(),
        plugin: pluginLimits.optional().describe('Default sandbox limits of every plugin'),
        mcpCallTimeoutMs: z
          .number()
          .int()
          .positive()
          .optional()
          .describe('Limit of one call to a bridged MCP server without an answer, ms (default 60000)'),
      })
      .optional(),
    sandbox: z
      .enum(['process', 'inline'])
      .optional()
      .describe("Where plugin isolates live (default 'process')"),
    signals: z
      .strictObject({
        auth: names.optional().describe('Auth providers whose credentials are present'),
        env: names
          .optional()
          .describe('Environment variables visible to env() availability checks (default: all)'),
        config: z
          .record(z.string(), z.unknown())
          .optional()
          .describe('The tree config() availability checks look into'),
        context: z.record(z.string(), z.unknown()).optional().describe('Default session context'),
      })
      .optional(),
    mcpServers: z.record(z.string(), mcpServer).optional().describe('MCP servers to bridge'),
  })
  .describe('toolhost configuration');

export type ToolhostConfig = z.output<typeof configSchema>;
