// A host whose tools are the catalogue's (fixtures/tool-catalog.json: 166 tools of 12 real MCP
// servers), handed in through the host API as the MCP bridge would hand them: one `mcp` source per
// server, each tool under its Map name with the server's exact description and input schema, and
// an executor that returns a canned result instead of calling a server.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHost } from '@toolhost/host';
import { catalog, mapName } from './search-recall.mjs';

/** The catalogue as host sources (`host.setSources`), one per MCP server. */
export function catalogSources() {
  const byServer = new Map();
  for (const t of catalog.tools) {
    const ref = { kind: 'mcp', serverId: t.server, toolName: t.name };
    const canned = { content: [{ type: 'text', text: `(canned result of ${t.server}/${t.name})` }] };
    const tool = {
      descriptor: {
        name: mapName(t.server, t.name),
        ...(t.title ? { title: t.title } : {}),
        description: t.description,
        inputSchema: t.inputSchema,
        owner: { kind: 'mcp', serverId: t.server },
        executor: ref,
      },
      source: 'mcp',
      sourceId: t.server,
      executor: { ref, run: async () => canned },
    };
    const tools = byServer.get(t.server) ?? [];
    tools.push(tool);
    byServer.set(t.server, tools);
  }
  return [...byServer].map(([id, tools]) => ({ kind: 'mcp', id, tools }));
}

/**
 * A host with the catalogue's tools only (no built-ins, plugins or config file); `config` is laid
 * over that (e.g. `{tools: {defer: ['*']}}`). Close it when done.
 */
export async function createCatalogHost(config = {}) {
  const host = await createHost({
    root: mkdtempSync(join(tmpdir(), 'toolhost-catalog-')),
    configFile: false,
    pluginsDir: false,
    builtins: false,
    ...config,
  });
  host.setSources(catalogSources());
  return host;
}
