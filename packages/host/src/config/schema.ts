import * as z from 'zod';
import { MAX_TIMER_MS } from '../util/timers.js';

/**
 * `toolhost.config.json`, validated with zod. The JSON Schema shipped beside the package
 * (`toolhost.config.schema.json`) is generated from this same schema, so editors complete and
 * check exactly what the host accepts. Unknown keys are errors everywhere: a typo never passes
 * silently.
 */

const names = z.array(z.string().min(1)).describe('names or patterns');

/** A duration a timer can hold (see limits.ts for how the limits combine). */
const ms = (what: string) => z.number().int().positive().max(MAX_TIMER_MS).optional().describe(`${what}, ms`);
/** A positive count or size. */
const count = (what: string) => z.number().int().positive().optional().describe(what);

const sandboxMode = z
  .enum(['process', 'inline'])
  .describe("'process': isolates in a supervised, jailed executor process; 'inline': in the host process");

const grants = z
  .strictObject({
    net: names
      .optional()
      .describe(
        'Hosts ctx.fetch may reach ("api.example.com", "*.example.com", "127.0.0.1:8080"); it connects to a ' +
          'loopback, private or other special-purpose address only when listed here by IP (or as localhost)',
      ),
    fs: z
      .strictObject({
        read: names.optional().describe('Folders (relative to the project root) ctx.fs may read'),
        write: names.optional().describe('Folders ctx.fs may write (and read)'),
      })
      .optional(),
    env: names.optional().describe('Environment variables ctx.env.get may read'),
  })
  .describe('What the operator grants; a capability needs the plugin to declare it too');

const processSandbox = z
  .union([
    z.boolean(),
    z.strictObject({
      net: names
        .optional()
        .describe("Hosts it may connect to, through the jail's proxy; the rules of plugins' grants.net"),
      fs: z
        .strictObject({
          read: names.optional().describe('Paths (relative to the project root, or absolute) it may read'),
          write: names.optional().describe('Paths it may write (and read); control files stay read-only'),
        })
        .optional(),
      env: names.optional().describe("Variables of the host's environment it receives"),
    }),
  ])
  .describe(
    "The OS jail around the process (default true: jailed by sandbox.jail's rule); false runs it unjailed, with the user's reach; an object grants paths, hosts and variables",
  );

const pluginLimits = z.strictObject({
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

const pluginSettings = z.strictObject({
  enabled: z.boolean().optional().describe('false hides every tool of the plugin (default true)'),
  config: z.unknown().optional().describe("The plugin's own config, validated against its schema"),
  grants: grants.optional(),
  limits: pluginLimits.optional(),
  hooks: z.enum(['own', 'all']).optional().describe("Which calls the plugin's hooks see (default 'own')"),
  overrides: names
    .optional()
    .describe("Built-in tools (exact names) the plugin's tools of the same name replace; meta tools never"),
});

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

const builtins = z.union([
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

const mcpServer = z.union([
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

const rateLimit = z.strictObject({
  perMinute: z.number().positive().describe('Calls a minute, refilled evenly'),
  burst: z
    .number()
    .int()
    .positive()
    .optional()
    .describe('Calls at once after a quiet spell (default perMinute)'),
});

const serve = z.strictObject({
  sessionIdleMs: z
    .number()
    .int()
    .min(1)
    .max(MAX_TIMER_MS)
    .optional()
    .describe(
      'An MCP session with no request and no open stream for this long is closed; its client gets 404 and initializes again, ms (default 1800000: 30 min)',
    ),
  maxSessions: z
    .number()
    .int()
    .positive()
    .optional()
    .describe(
      'Most MCP sessions open at once; at the cap a new client replaces the least recently used idle session, else the least recently used one that only holds its GET stream, and gets 503 only when every session is running a request (default 256)',
    ),
  maxBodyBytes: z
    .number()
    .int()
    .positive()
    .optional()
    .describe('Largest request body, bytes; a larger one gets 413 (default 4194304)'),
  allowedHosts: names
    .optional()
    .describe(
      "Host names accepted in the Host header, besides the OAuth resource's (default 127.0.0.1, localhost, [::1]); behind a load balancer, the name clients use",
    ),
  auth: z
    .strictObject({
      tokens: z
        .boolean()
        .optional()
        .describe(
          "The project's bearer tokens (.toolhost/serve-tokens.json, toolhost token); false: OAuth only (default true)",
        ),
      oauth: z
        .strictObject({
          issuer: z.url().describe("The authorization server's issuer"),
          resource: z
            .url()
            .describe(
              "This server's canonical URI, the audience tokens must name: https://tools.example.com/mcp",
            ),
          jwksUri: z.url().optional().describe("Its signing keys (default: its metadata's jwks_uri)"),
          scopes: names.optional().describe('Scopes every access token must carry'),
        })
        .optional()
        .describe(
          'Accept JWT access tokens of an authorization server (OAuth resource server, RFC 9728 metadata)',
        ),
    })
    .optional()
    .describe('How callers of the HTTP endpoint authenticate'),
  rateLimits: z
    .strictObject({
      principal: rateLimit.optional().describe("Each caller's tool calls, all tools together"),
      tools: z
        .record(z.string().min(1), rateLimit)
        .optional()
        .describe("Each caller's calls of the tools a name pattern (* wildcards) matches"),
    })
    .optional()
    .describe(
      'Token buckets per caller over HTTP; over one, the call gets 429 with Retry-After, saying which limit',
    ),
  requestStateKey: z
    .string()
    .min(32)
    .optional()
    .describe(
      'HMAC key (32+ characters) sealing the requestState of 2026-07-28 approvals; give every server process behind one address the same key so any of them can continue a call (default: a random key per process)',
    ),
});

const approveEntry = z.union([
  z.string().min(1).describe('A tool name, * wildcards, or group:...'),
  z.strictObject({
    tool: z.string().min(1).describe('A tool name, * wildcards, or group:...'),
    reason: z
      .string()
      .min(1)
      .max(1024)
      .optional()
      .describe('Shown to the approver and, on a refusal, the model'),
    severity: z.enum(['info', 'warning', 'critical']).optional().describe("Default 'warning'"),
  }),
]);

const approvals = z.strictObject({
  timeoutMs: ms('How long a call waits for a decision before it is refused (default 60000)'),
  mcpClients: names
    .optional()
    .describe(
      'MCP clients (clientInfo.name, * wildcards) whose elicitation answers count as approvals; a client names itself, and an automated one can accept on its own, so list only clients that show the form to a person (default: none)',
    ),
});

const principal = z.strictObject({
  match: z
    .strictObject({
      token: z.string().min(1).optional().describe('A project token name (toolhost token), * wildcards'),
      subject: z.string().min(1).optional().describe("An OAuth access token's subject (sub), * wildcards"),
      client: z.string().min(1).optional().describe('An OAuth client id (client_id or azp), * wildcards'),
      claim: z
        .strictObject({ name: z.string().min(1), equals: z.string() })
        .optional()
        .describe('A claim equal to "equals", or an array claim (groups) holding it'),
    })
    .describe('Which callers the entry is for: every field given must fit; {} fits every caller'),
  tools: z
    .strictObject({
      allow: names.optional().describe('Only matching tools, for these callers'),
      deny: names.optional().describe('Never these tools, for these callers'),
      approve: z.array(approveEntry).optional().describe('More tools that need a person, for these callers'),
      defer: names.optional().describe('More tools shown only through a search, for these callers'),
    })
    .optional(),
  approvals: z
    .strictObject({
      mcpClients: names.optional().describe('Replaces approvals.mcpClients for these callers'),
    })
    .optional(),
});

/** The zod schema of `toolhost.config.json`; the shipped JSON Schema is generated from it. */
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
        approve: z
          .array(approveEntry)
          .optional()
          .describe(
            'Matching tools run only once a person approves each call (see approvals); deny wins over approve',
          ),
        codeMode: z
          .boolean()
          .optional()
          .describe(
            'Sessions offer run_code (a script calling tools as async functions) and describe_tools instead of every tool (default false; host.session({ codeMode }) overrides). Scripts run where plugins run (see sandbox): in the executor process by default, where a V8 out-of-memory abort ends only that process; inline, in the host process',
          ),
        defer: names
          .optional()
          .describe(
            'Matching tools are deferred: the model sees them only once a tool search finds them; they stay callable and under allow/deny',
          ),
        catalog: z
          .strictObject({
            always: names.optional().describe('Matching tools are never deferred'),
            autoBudgetTokens: z
              .number()
              .int()
              .positive()
              .optional()
              .describe(
                'When the tools not otherwise deferred would take more tokens than this (estimated as JSON length / 4), all of them are deferred',
              ),
          })
          .optional()
          .describe('What stays loaded when tools are deferred'),
      })
      .optional(),
    approvals: approvals
      .optional()
      .describe('How calls needing approval (tools.approve, requireApproval, hooks) are answered'),
    plugins: z.record(z.string(), pluginSettings).optional().describe('Per plugin, by id'),
    limits: z
      .strictObject({
        timeoutMs: ms(
          'Wall-clock limit of one call, for tools whose source sets none of its own (default 30000)',
        ),
        hookTimeoutMs: ms('Wall-clock limit of each hook (default 10000)'),
        skillFileBytes: z
          .number()
          .int()
          .positive()
          .optional()
          .describe('Largest SKILL.md read, bytes; a larger one is hidden as skill-invalid (default 262144)'),
        maxResultChars: z.number().int().positive().optional(),
        plugin: pluginLimits.optional().describe('Default sandbox limits of every plugin'),
        mcpCallTimeoutMs: ms(
          'Wall-clock limit of one call to a bridged MCP server; replaces limits.timeoutMs (default: limits.timeoutMs)',
        ),
        logs: z
          .strictObject({
            linesPerCall: count(
              'Log lines one plugin call or hook delivers; the rest are counted and dropped (default 1000)',
            ),
            bytesPerCall: count('Bytes of log lines one plugin call or hook delivers (default 1048576)'),
            lineBytes: count(
              'Longest log line (its message and data), bytes; a longer one is cut (default 16384)',
            ),
            linesPerMinute: count(
              'Log lines one plugin delivers per minute, all its calls together (default 6000)',
            ),
            bytesPerMinute: count('Bytes of log lines one plugin delivers per minute (default 8388608)'),
          })
          .optional()
          .describe(
            "Caps on plugins' log lines (ctx.log and console); a dropped line is counted in one marker line per call",
          ),
        codeMode: z
          .strictObject({
            memoryMb: z
              .number()
              .int()
              .min(8)
              .max(8192)
              .optional()
              .describe('Isolate heap limit, MB (default 64)'),
            timeoutMs: ms('Wall-clock limit of one run_code script (default: limits.timeoutMs)'),
            cpuMs: ms('CPU time of one script inside its isolate (default 5000)'),
            maxResultChars: z
              .number()
              .int()
              .positive()
              .optional()
              .describe("Largest JSON of a script's returned value, characters (default 20000)"),
            maxLogChars: z
              .number()
              .int()
              .nonnegative()
              .optional()
              .describe('Console output of a script kept for the model, characters (default 10000)'),
            maxToolCalls: z
              .number()
              .int()
              .positive()
              .optional()
              .describe('Tool calls one script may make; the next one stops it (default 100)'),
            maxSourceChars: z
              .number()
              .int()
              .positive()
              .optional()
              .describe(
                'Largest script run_code accepts, characters; a larger one is refused unrun (default 100000)',
              ),
          })
          .optional()
          .describe('Limits of one run_code script (code mode)'),
      })
      .optional(),
    sandbox: z
      .union([
        sandboxMode,
        z.strictObject({
          mode: sandboxMode.optional(),
          jail: z
            .enum(['auto', 'required', 'off'])
            .optional()
            .describe(
              "The OS jail (Linux: bubblewrap) around the executor process: 'auto' jails wherever the system allows and says when it cannot, 'required' refuses to start where it cannot, 'off' runs it unjailed (default 'auto'; 'inline' has no executor, so no jail)",
            ),
        }),
      ])
      .optional()
      .describe(
        "Where plugin and code-mode script isolates live ('process', the default, or 'inline'), or { mode, jail }",
      ),
    isolates: z
      .strictObject({
        idleSeconds: z
          .number()
          .int()
          .positive()
          .max(Math.floor(MAX_TIMER_MS / 1000))
          .optional()
          .describe(
            'A plugin isolate with no call or hook for this long is disposed; the next call re-creates it, its module-scope state fresh, seconds (default 300)',
          ),
        maxLive: z
          .number()
          .int()
          .positive()
          .optional()
          .describe(
            'Most plugin isolates alive at once (per process); creating one more disposes the least recently used idle one (default 128)',
          ),
      })
      .optional()
      .describe(
        'Plugin isolates are created on a first call and disposed when idle; a change applies when the config reloads, without a restart',
      ),
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
    serve: serve.optional().describe('The MCP streamable HTTP server (toolhost serve --http, toolhost dev)'),
    audit: z
      .strictObject({
        enabled: z
          .boolean()
          .optional()
          .describe('false: no audit trail (default true for HTTP serving: serve --http, dev)'),
        dir: z
          .string()
          .min(1)
          .optional()
          .describe('Folder of the trail, relative to the project root (default .toolhost/audit)'),
        maxBytes: count('Size at which a trail file is rotated, bytes (default 10485760)'),
        keep: z.number().int().min(0).max(100).optional().describe('Rotated files kept (default 5)'),
        redactKeys: names
          .optional()
          .describe(
            'Keys whose values are never recorded, matched anywhere in a key, case-insensitive (default password, secret, token, apikey, authorization, cookie, credential, private_key, …)',
          ),
      })
      .optional()
      .describe('The audit trail: one JSON line per served call and approval, in a file per serving process'),
    telemetry: z
      .strictObject({
        otlp: z
          .strictObject({
            endpoint: z.url().describe("The collector's OTLP/HTTP base address, e.g. http://127.0.0.1:4318"),
            headers: z.record(z.string(), z.string()).optional().describe('Sent with every export'),
            serviceName: z.string().min(1).optional().describe('service.name (default toolhost)'),
            metricIntervalMs: ms('How often the call-duration metric is exported (default 60000)'),
          })
          .optional()
          .describe('Export spans (execute_tool, tools/call) and the call-duration metric over OTLP/HTTP'),
      })
      .optional()
      .describe('OpenTelemetry: without it, spans are no-ops unless the embedding program registers an SDK'),
    principals: z
      .record(z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/), principal)
      .optional()
      .describe(
        "Policy overlays per caller of the HTTP endpoint, in order: the first entry whose match fits a caller narrows the host's policy for it, at list and call time",
      ),
  })
  .describe('toolhost configuration');

/** A config that `configSchema` accepted (what `parseConfig` and `loadConfigFile` return). */
export type ToolhostConfig = z.output<typeof configSchema>;
