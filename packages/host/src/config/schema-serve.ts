/** The config schema's serving parts (see schema.ts): `serve`, `approvals`, `principals`. */
import * as z from 'zod';
import { MAX_TIMER_MS } from '../util/timers.js';
import { ms, names } from './schema-parts.js';

const rateLimit = z.strictObject({
  perMinute: z.number().positive().describe('Calls a minute, refilled evenly'),
  burst: z
    .number()
    .int()
    .positive()
    .optional()
    .describe('Calls at once after a quiet spell (default perMinute)'),
});

export const serve = z.strictObject({
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
  writeStallMs: z
    .number()
    .int()
    .min(1000)
    .max(MAX_TIMER_MS)
    .optional()
    .describe(
      'A connection whose client has read nothing of what the server is sending for this long is closed (a client that stops reading would otherwise keep its answers in memory), ms; read when the server starts (default 60000)',
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

export const approveEntry = z.union([
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

export const approvals = z.strictObject({
  timeoutMs: ms('How long a call waits for a decision before it is refused (default 60000)'),
  mcpClients: names
    .optional()
    .describe(
      'MCP clients (clientInfo.name, * wildcards) whose elicitation answers count as approvals; a client names itself, and an automated one can accept on its own, so list only clients that show the form to a person (default: none)',
    ),
});

export const principal = z.strictObject({
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
