import { ProtocolErrorCode, ResourceNotFoundError, type Server } from '@modelcontextprotocol/server';
import type { Session } from '../core/dispatch/session.js';
import type { ToolHost } from '../host/host.js';
import { internalsOf } from '../host/internals.js';

/**
 * `resources/read` of the pages MCP Apps tools point at: a bridged tool's `_meta.ui.resourceUri`
 * (or the older `openai/outputTemplate`) names a `ui://` resource its server serves, and a client
 * that renders MCP Apps reads it from toolhost. Only a URI that a tool this session may call
 * points at is read, and only from that tool's own server: toolhost serves no other resource.
 */

/** The `ui://` URI a descriptor's `_meta` points at, if any. */
function appResourceOf(meta: Readonly<Record<string, unknown>> | undefined): string | undefined {
  const ui = meta?.ui as { resourceUri?: unknown } | undefined;
  const uri = typeof ui?.resourceUri === 'string' ? ui.resourceUri : meta?.['openai/outputTemplate'];
  return typeof uri === 'string' && uri.startsWith('ui://') ? uri : undefined;
}

/** Registers `resources/read` (and, when `lists`, an empty `resources/list`) on `server`. */
export function registerAppResources(server: Server, session: Session, host: ToolHost, lists: boolean): void {
  if (lists) server.setRequestHandler('resources/list', async () => ({ resources: [] }));
  server.setRequestHandler('resources/read', async (request) => {
    const uri = request.params.uri;
    const name = session
      .descriptors()
      .find((d) => appResourceOf(d.meta) === uri && session.check(d.name).ok)?.name;
    const tool = name === undefined ? undefined : internalsOf(host).registry.tools.get(name);
    if (tool?.executor.readResource === undefined) {
      throw new ResourceNotFoundError(
        uri,
        `Resource "${uri}" is not available: no visible tool of this session points at "${uri}" (an MCP Apps tool's _meta.ui.resourceUri), and toolhost serves no other resource`,
      );
    }
    try {
      return (await tool.executor.readResource(uri)) as never;
    } catch (error) {
      throw Object.assign(new Error(`Resource "${uri}" of tool "${name}": ${(error as Error).message}`), {
        code: ProtocolErrorCode.InternalError,
      });
    }
  });
}
