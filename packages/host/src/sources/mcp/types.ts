/** The shapes the MCP bridge shares with the host and the CLI. */

import type { ProcessSandboxSetting } from '../../config/process-sandbox.js';
import type { JailSetting } from '../../config/sandbox.js';
import type { ProcessJail } from '../../jail/index.js';
import type { ControlPaths } from '../../workspace/control.js';

/** Where a server's process runs: the project root, `sandbox.jail`, the environment, the control paths. */
export interface ChannelPlace {
  readonly root: string;
  readonly jail: JailSetting;
  readonly env: NodeJS.ProcessEnv;
  readonly controlPaths: ControlPaths;
}

/** A stdio entry of `mcpServers`: a command the bridge starts. */
export interface StdioServerConfig {
  /** The executable; resolved on the PATH of the server's environment. */
  readonly command: string;
  readonly args?: readonly string[];
  /**
   * Set in its environment. Jailed, its whole environment is this, `PATH`, `HOME`, `TMPDIR` and
   * what `sandbox.env` names; unjailed, it is added to the minimal inherited one (HOME, LOGNAME,
   * PATH, SHELL, TERM, USER).
   */
  readonly env?: Readonly<Record<string, string>>;
  /** Working directory, relative to the bridge's `cwd`; default that `cwd` (jailed: where the jail shows it, else `/tmp`). */
  readonly cwd?: string;
  /** Its jail: default true (jailed by `sandbox.jail`'s rule); false runs it unjailed; an object grants. */
  readonly sandbox?: ProcessSandboxSetting;
}

/** Where a stdio server runs: in its jail with its grants, or unjailed and why. */
export type McpServerJail = ProcessJail;

/** One entry of `mcpServers` in config: a command to run over stdio, or a streamable HTTP URL. */
export type McpServerConfig =
  | StdioServerConfig
  | {
      /** A streamable HTTP endpoint. */
      readonly url: string;
      /** Sent with every request (e.g. `Authorization`). */
      readonly headers?: Readonly<Record<string, string>>;
      /**
       * The loopback and private addresses the URL may connect to, as plugins' `grants.net` names
       * them (`127.0.0.1:8080`, `localhost:8080`): its host passes ctx.fetch's address rule.
       */
      readonly net?: readonly string[];
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
  /** A stdio server's jail, or why it runs without one. */
  readonly jail?: McpServerJail;
  /** What its jail refused lately, each naming the key that grants it. */
  readonly refused?: readonly string[];
}
