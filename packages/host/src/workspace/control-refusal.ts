/** Refusals of the control-file guard (control.ts): the error, and the words it says them in. */
import { displayPath } from './confine.js';

/** Which control path a refusal is about. */
export type ControlKind = 'cache' | 'config' | 'host' | 'plugins' | 'secret' | 'skills';

/** A refused use of a control path. The message is safe to show to a model and names the key that opens it. */
export class ControlFileError extends Error {
  override readonly name = 'ControlFileError';
  readonly code = 'control-file';
  /** The path as the caller wrote it. */
  readonly userPath: string;
  readonly kind: ControlKind;
  /** The config key that would allow it; none opens the cache. */
  readonly configKey: string | undefined;

  constructor(message: string, userPath: string, kind: ControlKind, configKey: string | undefined) {
    super(message);
    this.userPath = userPath;
    this.kind = kind;
    this.configKey = configKey;
  }
}

/** Checks the `code`, not the class, so a second bundled copy of this module still matches. */
export function isControlFileError(error: unknown): error is ControlFileError {
  return error instanceof Error && (error as { code?: unknown }).code === 'control-file';
}

export interface ControlEntry {
  readonly kind: ControlKind;
  readonly absolute: string;
  readonly folder: boolean;
}

/** An entry as found on disk now. */
export interface Located {
  readonly entry: ControlEntry;
  /** Real path (what the display uses). */
  readonly real: string;
  /** Folded forms of the configured and the real path. */
  readonly names: readonly string[];
  /** Device and inode, when it exists. */
  readonly id: FileId | undefined;
}

export interface FileId {
  readonly dev: number;
  readonly ino: number;
}

/** What is done at a path: read it, write it, or start a process there (`cwd`, exec only). */
export type ControlOperation = 'read' | 'write' | 'cwd';
export type Operation = ControlOperation;

/**
 * Whom a guard refuses: the built-in tools (closed by default, opened by `builtins.controlFiles`)
 * or plugins' `ctx.fs` (closed always: no config key opens control files to plugin code).
 */
export type Audience = 'builtins' | 'plugins';

const DESCRIPTIONS = {
  config: 'the host config file',
  plugins: 'the plugins folder, whose code the host loads',
  skills: "the skills folder, whose skills the host lists in the model's prompt",
  cache: "the host's bundle cache",
  host: "the host's own code, which it runs on its next start",
  secret: "the HTTP endpoint's bearer tokens",
} as const satisfies Record<ControlKind, string>;

export function refusal(
  operation: Operation,
  control: Located,
  rootReal: string,
  userPath: string,
  audience: Audience,
  holds = false,
): ControlFileError {
  const { kind, folder } = control.entry;
  const where = `${displayPath(rootReal, control.real)}${folder ? '/' : ''}`;
  const what = `${DESCRIPTIONS[kind]} ${where}`;
  const quoted = JSON.stringify(userPath);
  if (audience === 'plugins') return pluginRefusal(operation, control, what, quoted, userPath, holds);
  const subject =
    operation === 'cwd'
      ? `cwd ${quoted} is inside a host control folder (${what}); exec may not run there`
      : folder
        ? `path ${quoted} is inside a host control folder (${what}); built-in tools may not write there`
        : operation === 'read'
          ? `path ${quoted} is a host control file (${what}); built-in tools may not read it, since it ${kind === 'secret' ? 'holds credentials' : 'can hold secrets (mcpServers headers and env)'}`
          : `path ${quoted} is a host control file (${what}); built-in tools may not change it, since that would let the model widen its own permissions`;
  if (kind === 'cache' || kind === 'host' || kind === 'secret') {
    return new ControlFileError(`${subject}. No config key opens it.`, userPath, kind, undefined);
  }
  const level = operation === 'read' ? 'read' : 'write';
  const key = `builtins.controlFiles.${kind}`;
  return new ControlFileError(
    `${subject}. The operator can allow it with ${key}: "${level}" in the config.`,
    userPath,
    kind,
    key,
  );
}

/** A refusal of plugin code: it names the path as the plugin wrote it, and that no grant opens it. */
function pluginRefusal(
  operation: Operation,
  control: Located,
  what: string,
  quoted: string,
  userPath: string,
  holds: boolean,
): ControlFileError {
  const { kind, folder } = control.entry;
  const write = operation !== 'read';
  const subject = holds
    ? `path ${quoted} holds a host control ${folder ? 'folder' : 'file'} (${what}); plugins may not remove, move or replace it`
    : folder
      ? `path ${quoted} is inside a host control folder (${what}); plugins may not ${write ? 'write there' : 'read there'}`
      : write
        ? `path ${quoted} is a host control file (${what}); plugins may not change it, since that would let a plugin widen its own grants`
        : `path ${quoted} is a host control file (${what}); plugins may not read it, since it holds every plugin's settings and grants`;
  return new ControlFileError(
    `${subject}. No grant opens it: builtins.controlFiles is for the built-in tools only.`,
    userPath,
    kind,
    undefined,
  );
}
