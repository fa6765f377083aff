import type { ToolHost, ToolSource } from '@toolhost/host';
/** The catalogue as host sources (`host.setSources`), one per MCP server. */
export declare function catalogSources(): ToolSource[];
/** A host with the catalogue's tools only; `config` is laid over it. Close it when done. */
export declare function createCatalogHost(config?: Record<string, unknown>): Promise<ToolHost>;
