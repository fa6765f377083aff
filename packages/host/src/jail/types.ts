/** A path of the host made visible in the jail (at `path`, from the host's `source`). */
export interface JailBind {
  readonly source: string;
  readonly path: string;
}

/** What one jailed process may see and has: everything else of the host is absent. */
export interface JailSpec {
  /**
   * What `/` starts as: `empty` (the default; only what is bound below exists) or `host` (the
   * host's whole file system, read-only, under everything else: `exec`'s view).
   */
  readonly base?: 'empty' | 'host';
  /** A fresh `/proc` of the jail's own PID namespace (no view of the host's processes). */
  readonly proc?: boolean;
  /** Folders covered by an empty tmpfs, before any bind (a `host` base's `/run`, with the host's Unix sockets; a server's home). */
  readonly masks?: readonly string[];
  /** Bound read-only. */
  readonly readOnly: readonly JailBind[];
  /** Bound read-write (none for the executor). */
  readonly readWrite?: readonly JailBind[];
  /** Bound read-only after `readWrite`: what must stay read-only inside a writable folder. */
  readonly readOnlyOver?: readonly JailBind[];
  /** Files covered by an empty read-only one (the config, where it may hold secrets). */
  readonly hide?: readonly string[];
  /** Symbolic links made inside the jail (`path` pointing at `target`). */
  readonly symlinks?: readonly { readonly target: string; readonly path: string }[];
  /** The whole environment of the jailed process. */
  readonly env: Readonly<Record<string, string>>;
  /** Size of its private `/tmp`, bytes. */
  readonly tmpBytes: number;
  /** Whether the seccomp filter is loaded (on fd `SECCOMP_FD` of the spawned bubblewrap). */
  readonly seccomp: boolean;
  /** Its working directory inside the jail; default `/`. */
  readonly cwd?: string;
}

/** Whether this machine can jail a process, and if not, why (said to people as it is). */
export type JailSupport =
  | { readonly available: true; readonly bwrap: string; readonly seccomp: boolean }
  | { readonly available: false; readonly reason: string };

/**
 * `sandbox.jail`: `auto` jails wherever the system allows it and says when it cannot; `required`
 * refuses to start where a jail cannot be made; `off` runs the executor unjailed, said plainly.
 */
export type JailMode = 'auto' | 'required' | 'off';

/** The walls around plugin code and code-mode scripts, as `doctor`, `dev` and `list --json` report them. */
export interface Walls {
  /** Always: isolated-vm isolates. */
  readonly isolate: true;
  /** Whether the executor process that holds the isolates is jailed. */
  readonly jail:
    | { readonly up: true; readonly kind: 'bubblewrap'; readonly seccomp: boolean }
    | { readonly up: false; readonly reason: string };
}

/**
 * An open network gate (capabilities/net-gate.ts): a private folder holding the Unix sockets of
 * the filtering proxies, bound into one jail, and the proxies' password.
 */
export interface NetGate {
  readonly dir: string;
  readonly token: string;
  close(): Promise<void>;
}
