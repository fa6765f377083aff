/**
 * What a failed `ctx.fs` operation tells plugin code: a {@link CapabilityError} whose message
 * names only the path the plugin wrote, never a host path, a stack or a raw system message.
 */
import type { Stats } from 'node:fs';
import { errorCode } from '../../util/errors.js';
import { describeFsError, isWorkspaceEscapeError } from '../../workspace/confine.js';
import { type CapabilityError, denied, failed, isCapabilityError } from '../errors.js';

export const subjectOf = (capability: string, userPath: string) =>
  `ctx.${capability} of ${JSON.stringify(userPath)}`;

/**
 * Turns whatever a file operation threw into a {@link CapabilityError} safe for plugin code:
 * escapes become denials, system errors are reworded from their code (a raw Node message would
 * carry the absolute host path), and the helpers' own messages name only the plugin's path.
 */
export function fsFailure(
  capability: string,
  subject: string,
  userPath: string,
  error: unknown,
): CapabilityError {
  if (isCapabilityError(error)) return error;
  if (isWorkspaceEscapeError(error)) {
    return denied(capability, `${subject} is not allowed: it leads outside the project root`);
  }
  const code = errorCode(error);
  const systemCode = code !== undefined && /^E[A-Z]+$/.test(code) ? code : undefined;
  // The builtins' own messages start with the quoted user path; others may hold host paths.
  if (error instanceof Error && /^(path|file) "/.test(error.message)) {
    return failed(capability, `${subject} failed: ${error.message}`, systemCode);
  }
  if (systemCode !== undefined) {
    const described = describeFsError(error, userPath);
    if (described === error) return failed(capability, `${subject} failed (${code})`, systemCode);
    return failed(capability, `${subject} failed: ${(described as Error).message}`, systemCode);
  }
  return failed(capability, `${subject} failed`);
}

/** A system error about the plugin's path, for {@link fsFailure} to reword. */
export function fsError(code: string, userPath: string, message: string): Error {
  return Object.assign(new Error(`path ${JSON.stringify(userPath)} ${message}`), { code });
}

/**
 * The refusal of anything but a regular file where one is opened. A FIFO would block the open
 * (and with it a thread of libuv's pool, which the host's own file operations share) until a
 * writer or reader comes; a device file could do anything.
 */
export function notRegularFile(capability: string, subject: string, info: Stats): CapabilityError {
  const kind = info.isFIFO()
    ? 'a FIFO (named pipe)'
    : info.isSocket()
      ? 'a socket'
      : info.isCharacterDevice()
        ? 'a character device'
        : info.isBlockDevice()
          ? 'a block device'
          : info.isSymbolicLink()
            ? 'a symbolic link (it changed while being opened)'
            : 'not a regular file';
  return failed(
    capability,
    `${subject} failed: it is ${kind}; ctx.fs opens only regular files (and lists folders)`,
  );
}
