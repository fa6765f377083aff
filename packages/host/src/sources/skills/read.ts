/**
 * Reads one SKILL.md with a bound on what it may cost. Anyone who can write the skills folder
 * controls the file: it may be 300 MB, a FIFO no one writes (a plain read waits forever), or a
 * link to `/dev/zero` (a plain read never ends). So only a regular file is read, opened without
 * waiting, and no more than `maxBytes + 1` bytes of it (one byte past the cap says it is too large
 * without reading the rest); a file whose size is over the cap is not read at all.
 */
import { constants } from 'node:fs';
import { open, stat } from 'node:fs/promises';

/** The file each skill folder holds. */
export const SKILL_FILE = 'SKILL.md';

/** The file's text, or why it was not read (`shown` names it in the message). */
export type SkillFileRead =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly message: string };

/** Opening a FIFO for reading waits for a writer unless non-blocking (absent on Windows, which has no FIFOs). */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

export async function readSkillFile(file: string, shown: string, maxBytes: number): Promise<SkillFileRead> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    // Looked at before it is opened (a device is never opened), and again once open (it may
    // have been swapped in between).
    if (!(await stat(file)).isFile()) return notAFile(shown);
    handle = await open(file, OPEN_FLAGS);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return {
      ok: false,
      message:
        code === 'ENOENT'
          ? `${shown}: missing; a skill folder holds a ${SKILL_FILE} (front matter, then instructions)`
          : cannotRead(shown, error),
    };
  }
  try {
    const opened = await handle.stat();
    if (!opened.isFile()) return notAFile(shown);
    if (opened.size > maxBytes) return tooLarge(shown, maxBytes);
    // Sized by the stat, plus the byte that tells the end; a file that grows while read gets a
    // buffer of the cap's size, which bounds the read whatever the file does.
    let buffer = Buffer.alloc(opened.size + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length < buffer.length) continue;
      if (buffer.length > maxBytes) break;
      const grown = Buffer.alloc(maxBytes + 1);
      buffer.copy(grown, 0, 0, length);
      buffer = grown;
    }
    if (length > maxBytes) return tooLarge(shown, maxBytes);
    return { ok: true, text: buffer.toString('utf8', 0, length) };
  } catch (error) {
    return { ok: false, message: cannotRead(shown, error) };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** By its code: the system's message names the absolute path, and diagnostics reach the model. */
function cannotRead(shown: string, error: unknown): string {
  const code = (error as { code?: unknown }).code;
  return `${shown}: cannot be read (${typeof code === 'string' ? code : 'error'})`;
}

function notAFile(shown: string): SkillFileRead {
  return { ok: false, message: `${shown}: is not a regular file` };
}

function tooLarge(shown: string, maxBytes: number): SkillFileRead {
  return {
    ok: false,
    message: `${shown}: is larger than ${maxBytes} bytes (limits.skillFileBytes); a skill's instructions belong in one short file`,
  };
}
