import { Client, SdkError, SdkErrorCode, type Tool } from '@modelcontextprotocol/client';
import type { HiddenToolPlanEntry, ToolDescriptor, ToolResult } from '@toolhost/plugin-sdk';
import type { OwnDeadline } from '../../config/limits.js';
import type { JailSetting } from '../../config/sandbox.js';
import { unavailableEntries } from '../../core/register/unavailable.js';
import { callStopped } from '../../core/wrap/errors.js';
import { refusalText } from '../../jail/refusals.js';
import type { ExecutionContext, RegisteredTool, ToolSource } from '../../types.js';
import type { ControlPaths } from '../../workspace/control.js';
import { type Channel, openChannel, withStderr } from './bridge-channel.js';
import { closeSession, listTools, type Session } from './bridge-session.js';
import {
  bridgeToolList,
  CONNECTION_CLOSED,
  callFailureMessage,
  isUnreachable,
  messageWithCause,
  protocolCode,
  REQUEST_TIMEOUT,
  sdkCode,
  toBridgedResult,
  withRefusals,
} from './bridge-tools.js';
import { ProgressTap } from './progress-tap.js';
import type { ServerJail } from './server-jail.js';
import type { McpServerConfig, McpServerState, McpServerStatus } from './types.js';

/** What every link shares: the bridge's resolved options. */
export interface LinkSettings {
  /** The wall clock of one call (see limits.ts); the bridge may change it on a config reload. */
  readonly callTimeout: OwnDeadline;
  readonly connectTimeoutMs: number;
  readonly backoff: { readonly initialMs: number; readonly maxMs: number };
  readonly root: string;
  /** `sandbox.jail`, read at each connection. */
  readonly jail: () => JailSetting;
  /** The environment `sandbox.env` grants come from. */
  readonly env: NodeJS.ProcessEnv;
  /** The host's control paths, held by every server's jail. */
  readonly controlPaths: ControlPaths;
  readonly log: (message: string) => void;
  /** The link's tools or their availability changed. */
  readonly changed: () => void;
  /** Keeps a closing connection until `close()` of the bridge has seen it end. */
  readonly track: (closing: Promise<void>) => void;
}

/**
 * One configured server: connects, lists its tools, follows `tools/list_changed`, notices the
 * connection dying and reconnects with exponential backoff. Every asynchronous step checks `epoch`
 * on its way back: a step begun for an earlier connection (or before `dispose`) changes nothing.
 */
export class ServerLink {
  readonly firstAttempt: Promise<void>;
  #state: McpServerState = 'connecting';
  #reason: string | undefined;
  #session: Session | undefined;
  /** The connection being set up, so `dispose` can close it too. */
  #pending: Session | undefined;
  #epoch = 0;
  #failures = 0;
  #timer: NodeJS.Timeout | undefined;
  /** The last tool list, as bridged: callable tools, tools that cannot be bridged, warnings. */
  #tools: readonly RegisteredTool[] = [];
  #blocked: readonly HiddenToolPlanEntry[] = [];
  #warnings: readonly string[] = [];
  #listed: string | undefined;
  #refreshing = false;
  #refreshAgain = false;
  /** The jail of the current (or last) stdio connection. */
  #jail: ServerJail | undefined;
  /** Progress of this link's calls, read at the transport. */
  readonly #progress = new ProgressTap();

  constructor(
    readonly name: string,
    readonly config: McpServerConfig,
    readonly key: string,
    private readonly settings: LinkSettings,
  ) {
    this.firstAttempt = this.#connect().then(() => undefined);
  }

  source(): ToolSource {
    if (this.#state === 'connected') {
      // Tools carry the call limit in force; they are stamped again only when it changed.
      if (this.#tools[0] !== undefined && this.#tools[0].timeout !== this.settings.callTimeout) {
        this.#tools = this.#tools.map((tool) => ({ ...tool, timeout: this.settings.callTimeout }));
      }
      return {
        kind: 'mcp',
        id: this.name,
        tools: this.#tools,
        ...(this.#blocked.length === 0 ? {} : { unavailable: this.#blocked }),
      };
    }
    const message =
      this.#state === 'connecting' && this.#reason === undefined
        ? `MCP server "${this.name}" is still connecting`
        : `MCP server "${this.name}" is unavailable: ${this.#reason ?? 'not connected'}`;
    const known: ToolDescriptor[] = [
      ...this.#tools.map((tool) => tool.descriptor),
      ...this.#blocked.map((entry) => entry.descriptor),
    ];
    return {
      kind: 'mcp',
      id: this.name,
      tools: [],
      unavailable: unavailableEntries({ kind: 'mcp', serverId: this.name }, known, {
        reason: 'mcp-unavailable',
        message,
      }),
    };
  }

  status(): McpServerStatus {
    const pid = this.#session?.channel.pid();
    const jail = this.#jail;
    const refused = jail?.recent().map(refusalText) ?? [];
    return {
      name: this.name,
      state: this.#state,
      ...(this.#reason === undefined || this.#state === 'connected' ? {} : { reason: this.#reason }),
      tools: this.#state === 'connected' ? this.#tools.length : 0,
      ...(pid === undefined ? {} : { pid }),
      ...(this.#warnings.length === 0 ? {} : { warnings: this.#warnings }),
      ...(jail === undefined ? {} : { jail: jail.state }),
      ...(refused.length === 0 ? {} : { refused }),
    };
  }

  /** Stops for good: cancels the reconnect timer and closes the live and pending connections. */
  async dispose(): Promise<void> {
    this.#epoch++;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const sessions = [this.#session, this.#pending].filter((s): s is Session => s !== undefined);
    this.#session = undefined;
    this.#pending = undefined;
    this.#state = 'unavailable';
    this.#reason = 'removed from config';
    await Promise.all(sessions.map(closeSession));
  }

  /** One connection attempt. Resolves true when connected; on failure, schedules the next one. */
  async #connect(): Promise<boolean> {
    const epoch = ++this.#epoch;
    this.#state = 'connecting';
    this.#refreshAgain = false;
    let channel: Channel;
    try {
      this.#jail = undefined;
      channel = openChannel(this.name, this.config, {
        root: this.settings.root,
        jail: this.settings.jail(),
        env: this.settings.env,
        controlPaths: this.settings.controlPaths,
      });
    } catch (error) {
      this.#fail(`cannot be started: ${messageWithCause(error)}`);
      return false;
    }
    this.#jail = channel.jail;
    const client = new Client({ name: 'toolhost', version: '0.1.0' }, { capabilities: {} });
    const session: Session = { client, channel };
    this.#pending = session;
    client.setNotificationHandler('notifications/tools/list_changed', () => this.#listChanged(epoch, client));
    client.onclose = () => {
      if (this.#epoch === epoch && this.#session === session)
        void this.#lost(session, 'closed the connection');
    };
    client.onerror = (error) => {
      if (this.#epoch === epoch) this.settings.log(`MCP server "${this.name}": ${messageWithCause(error)}`);
    };

    let tools: Tool[];
    try {
      await client.connect(channel.transport, { timeout: this.settings.connectTimeoutMs });
      this.#progress.attach(channel.transport);
      tools = await listTools(client, this.settings.connectTimeoutMs);
      // A `list_changed` that came while connecting may describe a list newer than the one read.
      while (this.#refreshAgain && this.#epoch === epoch) {
        this.#refreshAgain = false;
        tools = await listTools(client, this.settings.connectTimeoutMs);
      }
      // Closed after its last answer: `onclose` came while no session was set, so it was ignored.
      if (client.transport === undefined)
        throw new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed');
    } catch (error) {
      if (this.#pending === session) this.#pending = undefined;
      this.settings.track(closeSession(session));
      if (this.#epoch !== epoch) return false;
      await channel.drained();
      if (this.#epoch !== epoch) return false;
      this.#fail(withStderr(this.#connectFailure(error), channel));
      return false;
    }
    if (this.#pending === session) this.#pending = undefined;
    if (this.#epoch !== epoch) {
      this.settings.track(closeSession(session));
      return false;
    }
    this.#session = session;
    this.#state = 'connected';
    this.#reason = undefined;
    this.#failures = 0;
    this.#setTools(tools);
    this.settings.log(`MCP server "${this.name}" connected with ${this.#tools.length} tools`);
    return true;
  }

  #connectFailure(error: unknown): string {
    switch (sdkCode(error)) {
      case CONNECTION_CLOSED:
        return 'the server closed the connection before it was ready';
      case REQUEST_TIMEOUT:
        return `the server did not finish initializing within ${this.settings.connectTimeoutMs} ms`;
      default:
        return `could not connect: ${messageWithCause(error)}`;
    }
  }

  #fail(reason: string): void {
    this.#state = 'unavailable';
    this.#reason = reason;
    const delay = this.#scheduleReconnect();
    this.settings.log(`MCP server "${this.name}" is unavailable: ${reason}; retrying in ${delay} ms`);
  }

  /** Schedules the next attempt: `initialMs`, doubled after every failure, at most `maxMs`. */
  #scheduleReconnect(): number {
    const { initialMs, maxMs } = this.settings.backoff;
    const delay = Math.min(maxMs, initialMs * 2 ** Math.min(this.#failures, 30));
    this.#failures++;
    const epoch = this.#epoch;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (this.#epoch !== epoch) return;
      void this.#connect().then((connected) => {
        if (connected) this.settings.changed();
      });
    }, delay);
    // A server that stays down must not keep the host's process alive.
    this.#timer.unref();
    return delay;
  }

  /** The live connection ended without us asking: hide the tools, tell the host, reconnect later. */
  async #lost(session: Session, what: string): Promise<void> {
    const epoch = this.#epoch;
    this.#session = undefined;
    this.#state = 'unavailable';
    this.#reason = `the server ${what}`;
    await session.channel.drained();
    if (this.#epoch !== epoch) return;
    this.#fail(withStderr(`the server ${what}`, session.channel));
    this.settings.changed();
  }

  #listChanged(epoch: number, client: Client): void {
    if (this.#epoch !== epoch) return;
    if (this.#session?.client !== client || this.#refreshing) {
      // Still connecting, or a refresh is running: read the list (once more) when it is done.
      this.#refreshAgain = true;
      return;
    }
    void this.#refresh(epoch, client);
  }

  async #refresh(epoch: number, client: Client): Promise<void> {
    this.#refreshing = true;
    try {
      do {
        this.#refreshAgain = false;
        let tools: Tool[];
        try {
          tools = await listTools(client, this.settings.connectTimeoutMs);
        } catch (error) {
          if (this.#epoch === epoch)
            this.settings.log(
              `MCP server "${this.name}": re-listing tools failed: ${messageWithCause(error)}`,
            );
          return;
        }
        if (this.#epoch !== epoch || this.#session?.client !== client) return;
        if (this.#setTools(tools)) this.settings.changed();
      } while (this.#refreshAgain);
    } finally {
      this.#refreshing = false;
    }
  }

  /** Bridges a tool list; returns false when it is the list already bridged. */
  #setTools(tools: readonly Tool[]): boolean {
    const listed = JSON.stringify(tools);
    if (listed === this.#listed) return false;
    this.#listed = listed;
    const bridged = bridgeToolList(this.name, tools, (tool): RegisteredTool['executor'] => ({
      ref: { kind: 'mcp', serverId: this.name, toolName: tool.name },
      run: (input, ctx) => this.#call(tool.name, input, ctx),
      readResource: (uri) => this.#readResource(uri),
    }));
    for (const warning of bridged.warnings) this.settings.log(warning);
    this.#tools = bridged.tools.map((descriptor, _i) => ({
      descriptor: descriptor.descriptor,
      source: 'mcp',
      sourceId: this.name,
      executor: descriptor.executor,
      timeout: this.settings.callTimeout,
    }));
    this.#blocked = bridged.blocked;
    this.#warnings = bridged.warnings;
    return true;
  }

  /** `resources/read` of `uri` on this server (the serve side checked that a tool points at it). */
  async #readResource(uri: string): Promise<unknown> {
    const session = this.#session;
    if (session === undefined || this.#state !== 'connected') {
      throw new Error(`MCP server "${this.name}" is unavailable: ${this.#reason ?? 'not connected'}`);
    }
    return session.client.readResource({ uri }, { timeout: this.settings.callTimeout.ms });
  }

  async #call(toolName: string, input: unknown, ctx: ExecutionContext): Promise<ToolResult> {
    // Looked up at call time: a Map built before a reconnect still reaches the live connection.
    const session = this.#session;
    if (session === undefined || this.#state !== 'connected') {
      throw new Error(`MCP server "${this.name}" is unavailable: ${this.#reason ?? 'not connected'}`);
    }
    if (input !== undefined && (typeof input !== 'object' || input === null || Array.isArray(input))) {
      throw new Error(`tool "${toolName}" of MCP server "${this.name}" takes an object as input`);
    }
    ctx.signal.throwIfAborted();
    // The SDK never removes its abort listener, and the host aborts every call's signal when the
    // call ends; a signal of our own keeps a finished request from being "cancelled" afterwards.
    const controller = new AbortController();
    const cancel = () => controller.abort(ctx.signal.reason);
    ctx.signal.addEventListener('abort', cancel, { once: true });
    const timeout = this.settings.callTimeout;
    const mark = session.channel.jail?.mark() ?? 0;
    const progress = this.#progress.open((p) => ctx.progress(p.progress, p.total, p.message));
    try {
      const raw = await session.client.callTool(
        {
          name: toolName,
          ...(input === undefined ? {} : { arguments: input as Record<string, unknown> }),
          // The caller's trace goes on to the server, so its spans join the same trace.
          _meta: { ...ctx.trace, progressToken: progress.token },
        },
        // No onprogress: the tap reads this call's progress at the transport (progress-tap.ts).
        { signal: controller.signal, timeout: timeout.ms },
      );
      const result = toBridgedResult(this.name, toolName, raw);
      return withRefusals(result, session.channel.jail, mark);
    } catch (error) {
      if (controller.signal.aborted) {
        throw new Error(`MCP server "${this.name}": the call to tool "${toolName}" was cancelled`, {
          cause: error,
        });
      }
      if (session.channel.kind === 'http' && protocolCode(error) === undefined && isUnreachable(error)) {
        if (this.#session === session) {
          // `#lost` forgets the session first, so the `onclose` that closing fires is ignored.
          void this.#lost(session, `could not be reached (${messageWithCause(error)})`);
          this.settings.track(closeSession(session));
        }
        throw new Error(`MCP server "${this.name}" is unavailable: ${messageWithCause(error)}`, {
          cause: error,
        });
      }
      const refused = session.channel.jail?.since(mark) ?? [];
      const message = [callFailureMessage(this.name, toolName, error, timeout), ...refused].join('; ');
      // Its own limit ended the call: the status says so.
      if (sdkCode(error) === REQUEST_TIMEOUT) throw callStopped('timeout', message);
      throw new Error(message, { cause: error });
    } finally {
      progress.close();
      ctx.signal.removeEventListener('abort', cancel);
    }
  }
}
