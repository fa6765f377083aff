/** What a plugin's executor is given beside its input: `ctx` and its capabilities (see types.ts, which exports these as part of the contracts). */
import type { JsonSchema } from './types-content.js';

/** The abort signal a call receives: a real `AbortSignal` on the host, a compatible shim in the sandbox. */
export interface CallSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void): void;
  removeEventListener(type: 'abort', listener: () => void): void;
  throwIfAborted(): void;
}

/** Log lines from an executor, tagged with the tool and call by the host. */
export interface ToolLogger {
  debug(message: string, data?: unknown): void;
  info(message: string, data?: unknown): void;
  warn(message: string, data?: unknown): void;
  error(message: string, data?: unknown): void;
}

/** What a plugin asks for. Nothing takes effect until config grants it (`plugins.<id>.grants`). */
export interface PluginPermissions {
  /** Hosts `ctx.fetch` may reach: `api.example.com`, or `*.example.com` for subdomains. */
  readonly net?: readonly string[];
  /** Folders (relative to the project root) `ctx.fs` may read, or read and write. */
  readonly fs?: { readonly read?: readonly string[]; readonly write?: readonly string[] };
  /** Environment variables `ctx.env.get` may read. */
  readonly env?: readonly string[];
}

/** A response of `ctx.fetch`: the body is already read (size-capped) on the host. */
export interface FetchResponse {
  readonly url: string;
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  readonly headers: Readonly<Record<string, string>>;
  text(): Promise<string>;
  json(): Promise<unknown>;
}

/** Options of `ctx.fetch`; bodies are text. */
export interface FetchOptions {
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

/** `stat` of a path under a granted root. */
export interface FileStat {
  readonly size: number;
  readonly isFile: boolean;
  readonly isDirectory: boolean;
  readonly mtimeMs: number;
}

/**
 * File access under the roots config grants; paths are relative to the project root (a granted
 * `data` folder is reached as `data/x.txt`). A failure rejects with an `Error` whose `code` says
 * why: a system code (`ENOENT`, `EISDIR`, `ENOTDIR`, `EEXIST`, `ENOTEMPTY`, …) or `not-granted`
 * (outside the granted folders, or through a link leading out), `limit-exceeded`, `invalid-args`,
 * `control-file` (a host control file: the config, plugins/, .toolhost/; no grant opens them).
 */
export interface PluginFs {
  readFile(path: string): Promise<string>;
  /** Replaces the file atomically, creating it and its missing folders. Needs a write grant. */
  writeFile(path: string, data: string): Promise<void>;
  /** Appends text, creating the file; the result must stay within `fsMaxBytes`. Needs a write grant. */
  appendFile(path: string, data: string): Promise<void>;
  /** Names in a folder; sub-folders end with `/`. */
  readdir(path: string): Promise<string[]>;
  stat(path: string): Promise<FileStat>;
  /** Makes a folder (`recursive`: with its parents, and no error when it exists). Needs a write grant. */
  mkdir(path: string, options?: { readonly recursive?: boolean }): Promise<void>;
  /**
   * Removes a file, a link (never its target) or an empty folder; `recursive` removes a folder
   * with its contents, `force` ignores a missing path. A granted folder itself cannot be removed.
   */
  rm(path: string, options?: { readonly recursive?: boolean; readonly force?: boolean }): Promise<void>;
  /** Moves a file or folder; both paths need a write grant. A granted folder itself cannot move. */
  rename(from: string, to: string): Promise<void>;
}

/**
 * A question for the client of the MCP request a call came with: a form for the person
 * (`elicitation/create`, form mode), a completion from the client's model
 * (`sampling/createMessage`), or the client's roots (`roots/list`). See `ctx.ask`.
 */
export type InputRequest =
  | {
      readonly method: 'elicitation/create';
      readonly params: { readonly message: string; readonly requestedSchema: JsonSchema };
    }
  | { readonly method: 'sampling/createMessage'; readonly params: Readonly<Record<string, unknown>> }
  | { readonly method: 'roots/list'; readonly params?: Readonly<Record<string, never>> };

/** A form's answer: `accept` with the content, `decline` or `cancel` (MCP's `ElicitResult`). */
export interface ElicitAnswer {
  readonly action: 'accept' | 'decline' | 'cancel';
  readonly content?: Readonly<Record<string, unknown>>;
}

/**
 * The answer to one `InputRequest`: the client's result as MCP defines it (`ElicitAnswer`, a
 * `CreateMessageResult`, a `ListRootsResult`), or, for an optional request the client cannot
 * answer (it did not declare the capability), `{refused}` saying why.
 */
export type InputAnswer = Readonly<Record<string, unknown>> | { readonly refused: string };

/** What a failed `ctx.fs` or `ctx.fetch` call rejects with: an `Error` with a `code`. */
export interface CapabilityFailure extends Error {
  readonly code: string;
}

/** What an executor receives beside its input. */
export interface ToolContext<Config = unknown> {
  /** The id of the `tool_use` block being answered. */
  readonly toolUseId: string;
  /** Log lines, forwarded to the host's logger (and to MCP logging when served). */
  readonly log: ToolLogger;
  /** Reports progress; forwarded as MCP progress notifications when the client asked for them. */
  progress(done: number, total?: number, message?: string): void;
  /** Aborted on timeout or when the caller cancels. */
  readonly signal: CallSignal;
  /** The plugin's validated config (undefined for tools outside plugins). */
  readonly config: Config;
  /**
   * HTTP(S) for plugins to the hosts in `permissions.net` that config grants; every redirect hop
   * is checked too. Refused with an error naming the permission and config key otherwise.
   */
  readonly fetch: (url: string, options?: FetchOptions) => Promise<FetchResponse>;
  /** Files, for plugins, under the folders in `permissions.fs` that config grants. */
  readonly fs: PluginFs;
  /** For plugins, the variables in `permissions.env` that config grants. */
  readonly env: { get(name: string): string | undefined };
  /** Resolves after `ms`; a sleep still pending when the call ends never resolves. */
  readonly sleep: (ms: number) => Promise<void>;
  /**
   * Asks the client of the MCP request this call came with, all `requests` at once, keyed by
   * names of the tool's choosing; resolves with the answers by the same keys. Over MCP
   * 2025-11-25 the server sends the client each request; over 2026-07-28 the call ends with an
   * `input_required` result and is run again from its start when the client answers (answers of
   * earlier rounds are kept in the sealed `requestState`), so code before an ask must be safe to
   * run again. The client must be listed in `approvals.mcpClients` and have declared the
   * capability (elicitation, sampling, roots); otherwise this rejects (over 2026-07-28 a missing
   * capability fails the request with MissingRequiredClientCapability), unless `optional`, which
   * answers such a request with `{refused}` and asks the others.
   */
  readonly ask: (
    requests: Readonly<Record<string, InputRequest>>,
    options?: { readonly optional?: boolean },
  ) => Promise<Record<string, InputAnswer>>;
  /** Asks the person one form (`ctx.ask` of one `elicitation/create` under `key`, default `elicit`). */
  readonly elicit: (
    params: { readonly message: string; readonly requestedSchema: JsonSchema },
    key?: string,
  ) => Promise<ElicitAnswer>;
}
