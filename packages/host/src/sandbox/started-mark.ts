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

import { readSync, writeSync } from 'node:fs';
import { SharedTempFile } from '../util/temp-file.js';

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

/** The host's side: the file, made before the process is spawned and passed as its fd 4. */
export class StartedMarkFile {
  readonly #file: SharedTempFile;

  private constructor(file: SharedTempFile) {
    this.#file = file;
  }

  /** A new, empty count file (see `SharedTempFile`). */
  static open(): StartedMarkFile {
    return new StartedMarkFile(new SharedTempFile('toolhost-started'));
  }

  get fd(): number {
    return this.#file.fd;
  }

  /** How many requests the process had read (0 when it wrote nothing). */
  read(): number {
    if (this.#file.closed) return 0;
    const buffer = Buffer.alloc(SIZE);
    const got = readSync(this.fd, buffer, 0, SIZE, 0);
    return got === SIZE ? buffer.readDoubleLE(0) : 0;
  }

  close(): void {
    this.#file.close();
  }
}
