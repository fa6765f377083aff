import { type CacheHint, Server } from '@modelcontextprotocol/server';
import type { AuditSink } from '../audit/trail.js';
import type { Session } from '../core/dispatch/session.js';
import type { ToolHost } from '../host/host.js';
import type { Principal } from '../types.js';
import { registerAppResources } from './app-resources.js';
import { approvalStateCodec, modernApprover } from './approval-2026.js';
import { registerPrompts } from './prompts.js';
import { lazyValidator, type McpServeOptions, type ModernApprovals, registerToolHandlers } from './server.js';

/**
 * MCP 2026-07-28 (the SDK's "modern" era): no initialize and no session. Each request carries its
 * version, capabilities and client in `_meta`, and any instance can answer it, so one server's
 * 2026 requests of one principal share one host session: `tools/list` is the same for every
 * client and connection of the same authorization (the spec's MUST), and nothing a request does
 * changes what another lists (a tool search returns what it found; `call_tool` runs it).
 */

/**
 * Cache hints of the cacheable results. The tool list can change at any rebuild (a saved plugin, a
 * server's own list), and a client that listens hears of it at once; `ttlMs: 0` tells one that
 * does not to list again rather than trust a copy. `private`: the list may one day depend on who
 * asks (policy per principal). What `server/discover` says changes only with a new toolhost.
 */
type Cacheable =
  | 'tools/list'
  | 'server/discover'
  | 'prompts/list'
  | 'resources/list'
  | 'resources/templates/list'
  | 'resources/read';
const CACHE_HINTS: Partial<Record<Cacheable, CacheHint>> = {
  'tools/list': { ttlMs: 0, cacheScope: 'private' },
  'server/discover': { ttlMs: 3_600_000, cacheScope: 'public' },
  // toolhost lists no resources (it reads MCP Apps pages, resources/read); prompts are the
  // embedding's, fixed for the life of the serve.
  'prompts/list': { ttlMs: 3_600_000, cacheScope: 'public' },
  'resources/list': { ttlMs: 3_600_000, cacheScope: 'public' },
  'resources/templates/list': { ttlMs: 3_600_000, cacheScope: 'public' },
  // An MCP Apps page, read from the server of the tool that points at it: as fresh as that server.
  'resources/read': { ttlMs: 0, cacheScope: 'private' },
};

/** What every 2026-07-28 request of one serve shares. */
export interface ModernServing {
  readonly session: Session;
  readonly options: McpServeOptions;
  readonly approvals: ModernApprovals;
  /** Where its calls are recorded. */
  readonly audit?: AuditSink;
  /** `approvals.mcpClients` in force (the principal's overlay's, else the config's). */
  readonly clients: () => readonly string[];
  readonly host: ToolHost;
  /** Stops listening to the host. */
  readonly dispose: () => void;
}

/**
 * The shared state of one serve's 2026-07-28 requests of one principal: its host session. Over
 * HTTP each principal gets its own (`tools/list` varies with the request's authorization only,
 * as the spec allows); the requestState seal is the serve's one codec, so any replica with the
 * same key continues any principal's call.
 */
export function createModernServing(
  host: ToolHost,
  options: McpServeOptions,
  principal?: Principal,
  codec: ModernApprovals['codec'] = approvalStateCodec(host.config.serve?.requestStateKey),
  audit?: AuditSink,
): ModernServing {
  const approvals: ModernApprovals = { calls: new Map(), codec };
  const clients = () => session.approvalClients();
  // A search returns definitions and loads nothing: a search by one client must not change what
  // the others of the principal list. What it found is called through call_tool.
  const session: Session = host.session({
    ...options.session,
    ...(principal === undefined ? {} : { principal }),
    searchLoads: false,
    onApproval: options.session?.onApproval ?? modernApprover(approvals.calls, clients),
  });
  return {
    session,
    options,
    approvals,
    clients,
    host,
    ...(audit === undefined ? {} : { audit }),
    dispose: () => {},
  };
}

/** An SDK server for 2026-07-28 requests (per request over HTTP, per connection over stdio). */
export function createModernServer(serving: ModernServing): Server {
  const { options } = serving;
  const server = new Server(
    { name: options.name ?? 'toolhost', version: options.version ?? '0.1.0' },
    {
      capabilities: { tools: { listChanged: true }, logging: {}, prompts: {}, resources: {} },
      jsonSchemaValidator: lazyValidator(),
      cacheHints: CACHE_HINTS,
      // A tampered, expired or foreign requestState is refused (-32602) before any handler runs.
      requestState: { verify: serving.approvals.codec.verify },
    },
  );
  registerToolHandlers(
    server,
    serving.session,
    options,
    serving.clients,
    undefined,
    serving.approvals,
    serving.audit,
  );
  // The 2026 lists are cacheable and carry cache fields; a client that asks gets empty ones
  // (prompts: the embedding's, McpServeOptions.prompts, else none).
  registerPrompts(server, {
    prompts: options.prompts ?? [],
    clients: serving.clients,
    principal: serving.session.principal?.id,
    modern: serving.approvals,
  });
  registerAppResources(server, serving.session, serving.host, true);
  server.setRequestHandler('resources/templates/list', async () => ({ resourceTemplates: [] }));
  return server;
}
