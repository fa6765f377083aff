import { closeSync, openSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

let files = 0;

/**
 * A new, empty file in the temp folder, open for reading and writing, that a parent shares with a
 * child process through a descriptor (`stdio[n]`): removed from the folder at once where the
 * system allows an open file to be (whoever holds a descriptor keeps it), else when closed. What
 * the kernel holds of it outlives a process that dies, so the survivor reads what the other wrote.
 */
export class SharedTempFile {
  readonly fd: number;
  /** Its path, while the system kept it in the folder (it could not be removed while open). */
  readonly #name: string | undefined;
  #closed = false;

  constructor(prefix: string) {
    files += 1;
    const name = path.join(tmpdir(), `${prefix}-${process.pid}-${files}-${Date.now()}`);
    this.fd = openSync(name, 'wx+', 0o600);
    let kept: string | undefined;
    try {
      unlinkSync(name);
    } catch {
      kept = name;
    }
    this.#name = kept;
  }

  get closed(): boolean {
    return this.#closed;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    closeSync(this.fd);
    if (this.#name !== undefined) {
      try {
        unlinkSync(this.#name);
      } catch {
        // Gone already.
      }
    }
  }
}
