/** The shapes the MCP bridge shares with the host and the CLI. */

/** One entry of `mcpServers` in config: a command to run over stdio, or a streamable HTTP URL. */
export type McpServerConfig =
  | {
      /** The executable; resolved on the PATH of the server's environment. */
      readonly command: string;
      readonly args?: readonly string[];
      /** Added to the minimal inherited environment (HOME, LOGNAME, PATH, SHELL, TERM, USER). */
      readonly env?: Readonly<Record<string, string>>;
      /** Working directory, relative to the bridge's `cwd`; default that `cwd`. */
      readonly cwd?: string;
    }
  | {
      /** A streamable HTTP endpoint. */
      readonly url: string;
      /** Sent with every request (e.g. `Authorization`). */
      readonly headers?: Readonly<Record<string, string>>;
    };

/** Where a server's connection stands. */
export type McpServerState = 'connected' | 'connecting' | 'unavailable';

/** One server's state, for `toolhost list` and `doctor`. */
export interface McpServerStatus {
  /** The key under `mcpServers`. */
  readonly name: string;
  readonly state: McpServerState;
  /** Why it is not connected (while reconnecting: why the last attempt failed). */
  readonly reason?: string;
  /** Callable tools it offers now (0 unless connected). */
  readonly tools: number;
  /** The pid of a connected stdio server. */
  readonly pid?: number;
  /** Problems with its tool list, such as two tools sharing one bridged name. */
  readonly warnings?: readonly string[];
}
