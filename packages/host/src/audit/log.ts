/**
 * The audit trail's file: append-only JSON Lines, one record per line, in a folder of its own
 * (default `.toolhost/audit/`), one file per serving process (`<machine>-<port>.jsonl`), so
 * replicas that share a folder never write the same file. Lines are gathered in a batch, off the
 * request path, and written with one `write` to a descriptor opened for appending (mode 0600)
 * `flushMs` after the batch's first line, or at once when it holds `batchBytes`; a process killed
 * outright loses at most that batch. Writing once per call (a timer and a `write` each) was most
 * of what the trail cost a served call. A line may also be queued as the function that makes it
 * (`appendLater`), called when its batch is written: the record's hashing and serializing then
 * happen after the call's response, not before it. At `maxBytes` the file becomes `<name>.1.jsonl` (the older
 * ones shift up to `keep`, the oldest is removed) and a new one is started. `close()` writes what
 * is pending.
 */
import { closeSync, mkdirSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import * as path from 'node:path';

export interface AuditFileOptions {
  /** The folder; made when missing. */
  readonly dir: string;
  /** The file's name without `.jsonl`. */
  readonly name: string;
  /** Size at which the file is rotated, bytes (default 10 MiB). */
  readonly maxBytes?: number;
  /** Rotated files kept (default 5). */
  readonly keep?: number;
  /** Longest a line waits in its batch, ms (default 50). */
  readonly flushMs?: number;
}

/** A batch this large is written at once, whatever its age. */
const BATCH_BYTES = 64 * 1024;

export const DEFAULT_AUDIT_MAX_BYTES = 10 * 1024 * 1024;
export const DEFAULT_AUDIT_KEEP = 5;
export const DEFAULT_AUDIT_FLUSH_MS = 50;

export class AuditFile {
  readonly file: string;
  readonly #options: Required<AuditFileOptions>;
  #fd: number | undefined;
  #size = 0;
  /** Lines, or what makes them (`appendLater`), in the order they came. */
  #pending: (string | (() => string))[] = [];
  #pendingBytes = 0;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: AuditFileOptions) {
    this.#options = {
      maxBytes: DEFAULT_AUDIT_MAX_BYTES,
      keep: DEFAULT_AUDIT_KEEP,
      flushMs: DEFAULT_AUDIT_FLUSH_MS,
      ...options,
    };
    this.file = path.join(options.dir, `${options.name}.jsonl`);
  }

  /** Queues one record; written within `flushMs`. */
  append(record: object): void {
    this.appendLine(JSON.stringify(record));
  }

  /** Queues one record already serialized as JSON (one line, no newline). */
  appendLine(json: string): void {
    if (this.#closed) return;
    this.#queue(`${json}\n`, json.length + 1);
  }

  /**
   * Queues one record made later, when its batch is written: `make` gives its JSON (one line, no
   * newline). It must capture what it records, not read anything that may change meanwhile.
   * `chars` is about how long the line will be (what counts toward the batch's size).
   */
  appendLater(make: () => string, chars: number): void {
    if (this.#closed) return;
    this.#queue(make, chars);
  }

  #queue(line: string | (() => string), chars: number): void {
    this.#pending.push(line);
    // Characters, not bytes: a bound on the batch, not a measure of the file.
    this.#pendingBytes += chars;
    if (this.#pendingBytes >= BATCH_BYTES) this.flush();
    // Not unref'd: a process that ends on its own writes its last batch first.
    else this.#timer ??= setTimeout(() => this.flush(), this.#options.flushMs);
  }

  /** Writes what is queued now. */
  flush(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#pending.length === 0) return;
    const lines = this.#pending;
    this.#pending = [];
    this.#pendingBytes = 0;
    for (const chunk of this.#chunks(lines)) this.#write(chunk);
  }

  /** The queued lines in runs that each fit the current file (a rotation between two runs). */
  *#chunks(queued: readonly (string | (() => string))[]): Generator<string> {
    let run = '';
    let size = this.#open();
    for (const entry of queued) {
      const line = typeof entry === 'string' ? entry : made(entry);
      if (line === undefined) continue;
      const bytes = Buffer.byteLength(line);
      if (run !== '' && size + bytes > this.#options.maxBytes) {
        yield run;
        run = '';
        size = this.#rotate();
      } else if (run === '' && size > 0 && size + bytes > this.#options.maxBytes) {
        size = this.#rotate();
      }
      run += line;
      size += bytes;
    }
    if (run !== '') yield run;
  }

  #open(): number {
    if (this.#fd === undefined) {
      mkdirSync(this.#options.dir, { recursive: true, mode: 0o700 });
      this.#fd = openSync(this.file, 'a', 0o600);
      this.#size = statSync(this.file).size;
    }
    return this.#size;
  }

  #write(chunk: string): void {
    this.#open();
    const buffer = Buffer.from(chunk);
    writeSync(this.#fd as number, buffer);
    this.#size += buffer.length;
  }

  /** Shifts `name.jsonl` → `name.1.jsonl` → … → `name.<keep>.jsonl` (dropped), opens a new file. */
  #rotate(): number {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
    const { dir, name, keep } = this.#options;
    const at = (n: number) => path.join(dir, `${name}.${n}.jsonl`);
    rmSync(at(keep), { force: true });
    for (let n = keep - 1; n >= 1; n--) {
      try {
        renameSync(at(n), at(n + 1));
      } catch {
        // Not there yet.
      }
    }
    if (keep >= 1) renameSync(this.file, at(1));
    else rmSync(this.file, { force: true });
    return this.#open();
  }

  close(): void {
    if (this.#closed) return;
    this.flush();
    this.#closed = true;
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }
}

/** The line `make` gives; none when it fails (a bug: the other lines of its batch are written). */
function made(make: () => string): string | undefined {
  try {
    return `${make()}\n`;
  } catch {
    return undefined;
  }
}
