import { createMcpHandler, type McpHttpHandler } from '@modelcontextprotocol/server';
import type { AuditSink } from '../audit/trail.js';
import type { ToolHost } from '../host/host.js';
import type { Principal } from '../types.js';
import { approvalStateCodec } from './approval-2026.js';
import { createModernServer, createModernServing, type ModernServing } from './modern.js';
import type { McpServeOptions } from './server.js';

/**
 * The 2026-07-28 side of one HTTP server: a host session and an SDK handler per principal, made
 * on that principal's first request, so `tools/list` varies with the request's authorization
 * and with nothing else. Every handler seals `requestState` with the serve's one codec. At most
 * {@link MAX_PRINCIPALS} are kept; past that the least recently used one is closed (its listen
 * streams end; its next request makes it again).
 */
export const MAX_PRINCIPALS = 1024;

interface Entry {
  readonly serving: ModernServing;
  readonly handler: McpHttpHandler;
}

export class ModernPrincipals {
  readonly #host: ToolHost;
  readonly #options: McpServeOptions;
  readonly #codec: ReturnType<typeof approvalStateCodec>;
  readonly #entries = new Map<string, Entry>();
  /** Listens to the host from the first 2026 request on: a server only 2025 clients use holds no listener. */
  #stop: (() => void) | undefined;

  readonly #audit: AuditSink | undefined;

  constructor(host: ToolHost, options: McpServeOptions, audit?: AuditSink) {
    this.#host = host;
    this.#options = options;
    this.#audit = audit;
    this.#codec = approvalStateCodec(host.config.serve?.requestStateKey);
  }

  /** The handler of `principal`'s requests. */
  handlerFor(principal: Principal): McpHttpHandler {
    this.#stop ??= this.#host.on('change', () => {
      for (const entry of this.#entries.values()) entry.handler.notify.toolsChanged();
    });
    let entry = this.#entries.get(principal.id);
    if (entry !== undefined) {
      // Most recently used last.
      this.#entries.delete(principal.id);
      this.#entries.set(principal.id, entry);
      return entry.handler;
    }
    const serving = createModernServing(this.#host, this.#options, principal, this.#codec, this.#audit);
    const handler = createMcpHandler(() => createModernServer(serving), {
      legacy: 'reject',
      onerror: () => {},
    });
    entry = { serving, handler };
    this.#entries.set(principal.id, entry);
    if (this.#entries.size > MAX_PRINCIPALS) {
      const [oldest, first] = this.#entries.entries().next().value as [string, Entry];
      this.#entries.delete(oldest);
      void this.#dispose(first);
    }
    return handler;
  }

  async #dispose(entry: Entry): Promise<void> {
    entry.serving.dispose();
    await entry.handler.close();
  }

  async close(): Promise<void> {
    this.#stop?.();
    const entries = [...this.#entries.values()];
    this.#entries.clear();
    await Promise.all(entries.map((entry) => this.#dispose(entry)));
  }
}
