/**
 * How the host learns which requests an executor process had started when it dies, without a
 * message per request: the executor counts the requests it has read and keeps the count in a
 * small file the two processes share (the child's fd 4), written in place before any of them
 * runs. The host reads it only after the process has died. A request is started when its place
 * in the order the host sent requests to that process is below the count.
 *
 * A message (`started`, sent and flushed before running) said the same, but cost every call a
 * write in the executor and a wake-up of the host; this costs the executor one positional write
 * per chunk read and the host nothing until a crash. What the kernel holds of the file survives
 * the process, so the count is as certain as the message was.
 */

import { closeSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

/** The executor's file descriptor of the count. */
export const STARTED_MARK_FD = 4;

/** Bytes of the count: a double, exact up to 2^53 requests. */
const SIZE = 8;

/** The executor's side: adds the requests of each chunk before running them. */
export class StartedMarkWriter {
  readonly #fd: number;
  readonly #buffer = Buffer.alloc(SIZE);
  #count = 0;

  constructor(fd = STARTED_MARK_FD) {
    this.#fd = fd;
  }

  /** Records that `requests` more requests have been read; returns once the kernel has it. */
  add(requests: number): void {
    if (requests === 0) return;
    this.#count += requests;
    this.#buffer.writeDoubleLE(this.#count, 0);
    writeSync(this.#fd, this.#buffer, 0, SIZE, 0);
  }
}

let files = 0;

/**
 * A new, empty file in the temp folder, open for reading and writing, and removed from the folder
 * at once where the system allows an open file to be (whoever holds its descriptor keeps it);
 * `name` is its path when it could not be removed (remove it once closed).
 */
export function openUnlinkedTemp(prefix: string): { fd: number; name: string | undefined } {
  files += 1;
  const name = path.join(tmpdir(), `${prefix}-${process.pid}-${files}-${Date.now()}`);
  const fd = openSync(name, 'wx+', 0o600);
  try {
    unlinkSync(name);
    return { fd, name: undefined };
  } catch {
    return { fd, name };
  }
}

/** The host's side: the file, made before the process is spawned and passed as its fd 4. */
export class StartedMarkFile {
  readonly fd: number;
  /** Its path, while the system kept it in the folder (it could not be removed while open). */
  #name: string | undefined;
  #closed = false;

  private constructor(fd: number) {
    this.fd = fd;
  }

  /**
   * A new, empty file in the temp folder, removed from the folder at once where the system allows
   * an open file to be (both processes keep it through their descriptors), else when closed.
   */
  static open(): StartedMarkFile {
    const { fd, name } = openUnlinkedTemp('toolhost-started');
    const file = new StartedMarkFile(fd);
    file.#name = name;
    return file;
  }

  /** How many requests the process had read (0 when it wrote nothing). */
  read(): number {
    if (this.#closed) return 0;
    const buffer = Buffer.alloc(SIZE);
    const got = readSync(this.fd, buffer, 0, SIZE, 0);
    return got === SIZE ? buffer.readDoubleLE(0) : 0;
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
