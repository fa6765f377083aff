import type { ProcessSandboxSetting } from '../../config/process-sandbox.js';
import type { JailSetting } from '../../config/sandbox.js';
import type { ControlFileAccess, ControlPaths } from '../../workspace/control.js';

export type { ControlFileAccess, ControlPaths } from '../../workspace/control.js';

/** Options of the built-in tools. */
export interface BuiltinToolsOptions {
  /** The workspace root: every path the tools touch must resolve inside it. May be a symlink. */
  readonly root: string;
  /** The `exec` tool; left out of the tool list unless `enabled` is true. */
  readonly exec?: ExecOptions;
  /** The call limit (`limits.timeoutMs`), which exec's own `timeoutMs` replaces when set. Default 30 000. */
  readonly callTimeoutMs?: number;
  /** Largest file, in bytes, that `read` and `edit` load and `grep` searches. Default 1 MiB. */
  readonly maxReadBytes?: number;
  /** What the tools may do with the host's control files. Default: closed (see {@link ControlFileAccess}). */
  readonly controlFiles?: ControlFileAccess;
  /** Where the host's control files are. A host sets it from its own config; defaults under `root`. */
  readonly controlPaths?: ControlPaths;
  /** The `grep` tool's time limits. */
  readonly grep?: GrepOptions;
  /** `sandbox.jail`: whether `exec` runs jailed where no jail can be made. Default `auto`. */
  readonly jail?: JailSetting;
  /** The environment `exec`'s granted variables come from. Default `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
}

/** Options of the `grep` tool. */
export interface GrepOptions {
  /** Wall-clock budget of one search, ms; grep then returns what it found and says so. Default 10 000. */
  readonly searchBudgetMs?: number;
  /**
   * Longest one file may take to match, ms, before grep retries it with its linear-time engine (or
   * skips it, when that engine cannot run the pattern or is too slow as well). Default 500.
   */
  readonly fileBudgetMs?: number;
}

/** Options of the `exec` tool. It runs programs without a shell, in a jail by default. */
export interface ExecOptions {
  /** Offer `exec` at all. Default false. */
  readonly enabled?: boolean;
  /** Wall-clock limit of one run; the process group is killed when it passes. Default 30 000 ms. */
  readonly timeoutMs?: number;
  /** Cap on the stdout and stderr bytes kept, combined; the rest is dropped. Default 64 KiB. */
  readonly maxOutputBytes?: number;
  /** When given, only these exact `command` strings may run. */
  readonly allowedCommands?: readonly string[];
  /**
   * The jail (default `true`): the workspace writable but for the control files, the rest of the
   * file system read-only, no network, a minimal environment; an object grants more; `false`
   * runs programs unjailed, with the host user's reach.
   */
  readonly sandbox?: ProcessSandboxSetting;
}
