/** A path of the host made visible in the jail (at `path`, from the host's `source`). */
export interface JailBind {
  readonly source: string;
  readonly path: string;
}

/** What one jailed process may see and has: everything else of the host is absent. */
export interface JailSpec {
  /** Bound read-only. */
  readonly readOnly: readonly JailBind[];
  /** Bound read-write (none for the executor). */
  readonly readWrite?: readonly JailBind[];
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
