import type { OwnDeadline } from '../../config/limits.js';
import type { JailSetting } from '../../config/sandbox.js';
import type { Disposer, RefreshReason, SourceAdapter, ToolSource } from '../../types.js';
import { Listeners } from '../../util/listeners.js';
import type { McpBridge, McpBridgeOptions } from './bridge.js';
import type { McpServerConfig, McpServerStatus } from './types.js';

/** What the MCP source reads from the host's settings at each refresh. */
export interface McpSourceSettings {
  readonly servers: Readonly<Record<string, McpServerConfig>>;
  readonly callTimeout: OwnDeadline;
  /** `sandbox.jail`: where stdio servers run when no jail can be made. */
  readonly jail: JailSetting;
}

export interface McpSourceOptions {
  /** The project root: the default working directory of stdio servers. */
  readonly cwd: string;
  /** Connect timeout, reconnect backoff, diagnostics. */
  readonly bridge?: Omit<McpBridgeOptions, 'onChange' | 'cwd' | 'callTimeout' | 'jail'>;
  readonly settings: () => McpSourceSettings;
}

/**
 * The MCP servers of `mcpServers`, bridged: each is one contribution, named `mcp__<server>__<tool>`.
 * A server that connects, dies or changes its tool list is a change of this source; one that is
 * down is hidden (`mcp-unavailable`), never a failure of the refresh.
 */
export class McpSource implements SourceAdapter {
  readonly name = 'mcp';
  readonly #options: McpSourceOptions;
  readonly #changed = new Listeners<string>();
  #bridge: McpBridge | undefined;
  #closed = false;

  constructor(options: McpSourceOptions) {
    this.#options = options;
  }

  /** Where each server stands (connected, connecting, unavailable and why). */
  status(): readonly McpServerStatus[] {
    return this.#bridge?.status() ?? [];
  }

  /**
   * Connects, disconnects or reconnects servers to match the settings; resolves once each new
   * server's first attempt is over. Nothing to do (and no change) while no server was ever listed.
   */
  async refresh(reason: RefreshReason): Promise<boolean> {
    if (this.#closed || reason.kind === 'files') return false;
    const { servers, callTimeout } = this.#options.settings();
    if (this.#bridge === undefined && Object.keys(servers).length === 0) return false;
    this.#bridge?.setCallTimeout(callTimeout);
    const bridge = this.#bridge ?? (await this.#makeBridge(callTimeout));
    if (bridge === undefined) return false;
    await bridge.update(servers);
    return true;
  }

  /**
   * The bridge, made once: it, and the MCP client SDK under it (≈ 100 ms of imports), load with
   * the first server listed, so a host or a CLI run without MCP servers never pays for them.
   * Undefined when the source closed while they loaded.
   */
  async #makeBridge(callTimeout: OwnDeadline): Promise<McpBridge | undefined> {
    const { McpBridge } = await import('./bridge.js');
    if (this.#closed) return undefined;
    // A refresh that ran alongside may have made it meanwhile.
    this.#bridge ??= new McpBridge({
      ...this.#options.bridge,
      callTimeout,
      cwd: this.#options.cwd,
      jail: () => this.#options.settings().jail,
      onChange: () => this.#changed.emit('mcp'),
    });
    return this.#bridge;
  }

  contributions(): readonly ToolSource[] {
    return this.#bridge?.sources() ?? [];
  }

  onChange(listener: (cause: string) => void): Disposer {
    return this.#changed.add(listener);
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#bridge?.close();
  }
}
