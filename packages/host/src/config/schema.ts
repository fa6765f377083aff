import * as z from 'zod';
import { MAX_TIMER_MS } from '../util/timers.js';
import { count, ms, names, sandboxMode } from './schema-parts.js';
import { pluginLimits, pluginSettings } from './schema-plugins.js';
import { approvals, approveEntry, principal, serve } from './schema-serve.js';
import { builtins, mcpServer } from './schema-tools.js';

/**
 * `toolhost.config.json`, validated with zod. The JSON Schema shipped beside the package
 * (`toolhost.config.schema.json`) is generated from this same schema, so editors complete and
 * check exactly what the host accepts. Unknown keys are errors everywhere: a typo never passes
 * silently.
 */

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
          pollMicros: z
            .number()
            .int()
            .min(0)
            .max(10_000)
            .optional()
            .describe(
              'How long, at most, toolhost keeps polling instead of sleeping where the next message is due soon, microseconds: the host while a call runs in the executor, the executor after its reads and answers, `serve` over stdio after each response; each polls about twice as long as its waits usually take, and not at all where they take longer than this. Spares a sequential call the wake-up of a sleeping process for a little CPU (default 100 with 2 CPUs or more, 0 with one; 0 turns it off; read when the sandbox or serve starts)',
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
