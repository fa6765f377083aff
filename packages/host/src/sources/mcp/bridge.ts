import { DEFAULT_LIMITS, type OwnDeadline } from '../../config/limits.js';
import type { JailSetting } from '../../config/sandbox.js';
import type { ToolSource } from '../../types.js';
import { byCodeUnit } from '../../util/compare.js';
import { messageOf } from '../../util/errors.js';
import type { ControlPaths } from '../../workspace/control.js';
import { type LinkSettings, ServerLink } from './bridge-link.js';
import type { McpServerConfig, McpServerStatus } from './types.js';

export type { McpServerConfig, McpServerState, McpServerStatus } from './types.js';

export interface McpBridgeOptions {
  /**
   * Called whenever the set of tools or their availability changed after `update()` resolved: a
   * server reconnected, died, or sent `tools/list_changed` with a different list. The host then
   * rebuilds its Map. Never called synchronously, nor for what `update()` itself reports; calls
   * within one microtask are coalesced; never called after `close()`.
   */
  readonly onChange: () => void;
  /**
   * Wall clock of one `tools/call`, ms, and the setting it came from (see limits.ts); default the
   * call limit, 30 000 ms of `limits.timeoutMs`.
   */
  readonly callTimeout?: OwnDeadline;
  /** Limit of the initialize handshake and of each `tools/list`, ms; default 15 000. */
  readonly connectTimeoutMs?: number;
  /** Reconnect delays: `initialMs`, doubled after each failure, at most `maxMs`; default 1 000 / 30 000. */
  readonly backoff?: { readonly initialMs: number; readonly maxMs: number };
  /** The project root: default working directory of stdio servers; default `process.cwd()`. */
  readonly cwd?: string;
  /** `sandbox.jail`, read at each connection; default `auto`. */
  readonly jail?: () => JailSetting;
  /** Where `sandbox.env` grants come from; default `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
  /** The host's control paths, which a server's jail holds read-only (and the config hidden); default under `cwd`. */
  readonly controlPaths?: ControlPaths;
  /** Diagnostics: connects, connect failures, deaths, reconnects, renamed tools. */
  readonly log?: (message: string) => void;
}

/** A config compared by content: the same keys in another order are the same config. */
function configKey(config: McpServerConfig): string {
  return JSON.stringify(config, (_key, value: unknown) =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => byCodeUnit(a, b)))
      : value,
  );
}

/**
 * Bridges the MCP servers of config into the registry: each server becomes one `ToolSource` (kind
 * `mcp`, id the server's name) whose tools are named `mcp__<server>__<tool>`. A server that is down
 * offers its tools as hidden (`mcp-unavailable`) and is reconnected with backoff.
 */
export class McpBridge {
  readonly #links = new Map<string, ServerLink>();
  readonly #closing = new Set<Promise<void>>();
  readonly #settings: { -readonly [K in keyof LinkSettings]: LinkSettings[K] };
  readonly #onChange: () => void;
  #changePending = false;
  #closed = false;

  constructor(options: McpBridgeOptions) {
    this.#onChange = options.onChange;
    const log = options.log ?? (() => {});
    this.#settings = {
      callTimeout: options.callTimeout ?? { ms: DEFAULT_LIMITS.timeoutMs, setting: 'limits.timeoutMs' },
      connectTimeoutMs: options.connectTimeoutMs ?? 15_000,
      backoff: options.backoff ?? { initialMs: 1_000, maxMs: 30_000 },
      root: options.cwd ?? process.cwd(),
      jail: options.jail ?? (() => 'auto'),
      env: options.env ?? process.env,
      controlPaths: options.controlPaths ?? {},
      log: (message) => {
        try {
          log(message);
        } catch {
          // A broken log sink loses a line, never a connection.
        }
      },
      changed: () => this.#changed(),
      track: (closing) => this.#track(closing),
    };
  }

  /**
   * Connects new servers, disconnects removed ones and reconnects changed ones (configs compared by
   * content). Resolves once each new server's first connection attempt has finished, connected or
   * not; a removed server's source is gone at once, its process is stopped in the background.
   */
  async update(servers: Readonly<Record<string, McpServerConfig>>): Promise<void> {
    if (this.#closed) throw new Error('the MCP bridge is closed');
    const links = new Map<string, ServerLink>();
    const attempts: Promise<void>[] = [];
    for (const [name, config] of Object.entries(servers)) {
      const key = configKey(config);
      const current = this.#links.get(name);
      if (current !== undefined && current.key === key) {
        links.set(name, current);
        continue;
      }
      if (current !== undefined) this.#settings.log(`MCP server "${name}": config changed, reconnecting`);
      const link = new ServerLink(name, config, key, this.#settings);
      links.set(name, link);
      attempts.push(link.firstAttempt);
    }
    for (const [name, link] of this.#links) {
      if (links.get(name) !== link) this.#track(link.dispose());
    }
    this.#links.clear();
    for (const [name, link] of links) this.#links.set(name, link);
    await Promise.all(attempts);
  }

  /** One source per configured server, in config order. */
  /** A new call limit (a config reload changed it): every server's tools carry it from the next rebuild. */
  setCallTimeout(deadline: OwnDeadline): void {
    const current = this.#settings.callTimeout;
    if (current.ms !== deadline.ms || current.setting !== deadline.setting)
      this.#settings.callTimeout = deadline;
  }

  sources(): ToolSource[] {
    return [...this.#links.values()].map((link) => link.source());
  }

  status(): McpServerStatus[] {
    return [...this.#links.values()].map((link) => link.status());
  }

  /** Closes every connection, stops every stdio server and cancels reconnects. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const link of this.#links.values()) this.#track(link.dispose());
    this.#links.clear();
    while (this.#closing.size > 0) await Promise.all([...this.#closing]);
  }

  #track(closing: Promise<void>): void {
    const settled = closing.catch(() => {});
    this.#closing.add(settled);
    void settled.then(() => this.#closing.delete(settled));
  }

  #changed(): void {
    if (this.#changePending || this.#closed) return;
    this.#changePending = true;
    queueMicrotask(() => {
      this.#changePending = false;
      if (this.#closed) return;
      try {
        this.#onChange();
      } catch (error) {
        this.#settings.log(`MCP bridge: onChange threw: ${messageOf(error)}`);
      }
    });
  }
}
