/**
 * Newline-delimited messages read across arbitrary chunk splits, as the SDK's stdio transport
 * reads them (its `ReadBuffer`): a line ends at `\n`, a `\r` before it is dropped, and a message
 * longer than `maxBytes` is an error that ends the connection. Split as bytes and decoded a whole
 * line at a time, so a character whose bytes come in two chunks stays one (a newline byte is
 * never inside one). Imports nothing: early-stdio.ts reads the client's first lines with it
 * before anything else is loaded, serve/stdio.ts the rest, parsing each message once.
 */
export class LineReader {
  readonly #maxBytes: number;
  /**
   * The start of a line whose end has not come yet (its first `#length` bytes), copied into a
   * buffer that doubles as it fills: each byte is copied about twice however the client splits its
   * writes. Joining what was held with every chunk copied a long message again at each one (a 9 MB
   * message in 64 KB chunks: 275-490 ms, now 40-70 ms), and keeping the chunks as they came would
   * cost a Buffer object a byte to a client that writes one at a time.
   */
  #held: Buffer | undefined;
  #length = 0;

  constructor(maxBytes = Number.POSITIVE_INFINITY) {
    this.#maxBytes = maxBytes;
  }

  /**
   * The lines `chunk` completes, in order. Throws, and forgets what it held, when what is held
   * would grow past the limit (as the SDK's buffer does).
   */
  push(chunk: Buffer): string[] {
    if (this.#length + chunk.length > this.#maxBytes) {
      this.#drop();
      throw new Error(`ReadBuffer exceeded maximum size of ${this.#maxBytes} bytes`);
    }
    const lines: string[] = [];
    let start = 0;
    let end = chunk.indexOf(10);
    if (end !== -1 && this.#held !== undefined) {
      // The held start of a line ends in this chunk.
      this.#append(chunk, 0, end);
      lines.push(textOf(this.#held, 0, this.#length));
      this.#drop();
      start = end + 1;
      end = chunk.indexOf(10, start);
    }
    for (; end !== -1; end = chunk.indexOf(10, start)) {
      lines.push(textOf(chunk, start, end));
      start = end + 1;
    }
    if (start < chunk.length) this.#append(chunk, start, chunk.length);
    return lines;
  }

  /** The start of a line whose end has not come yet, if any (a copy). */
  get held(): Buffer | undefined {
    return this.#held === undefined ? undefined : Buffer.from(this.#held.subarray(0, this.#length));
  }

  #append(chunk: Buffer, from: number, to: number): void {
    const length = this.#length + (to - from);
    if (this.#held === undefined || length > this.#held.length) {
      // Never past the limit, which `push` has checked `length` against.
      const size = Math.min(Math.max(length, 2 * (this.#held?.length ?? 0), 4096), this.#maxBytes);
      const grown = Buffer.allocUnsafe(size);
      this.#held?.copy(grown, 0, 0, this.#length);
      this.#held = grown;
    }
    chunk.copy(this.#held, this.#length, from, to);
    this.#length = length;
  }

  #drop(): void {
    this.#held = undefined;
    this.#length = 0;
  }
}

/** The text of `buffer`'s bytes from `start` to `end` (a newline's place), without a `\r` before it. */
function textOf(buffer: Buffer, start: number, end: number): string {
  return buffer.toString('utf8', start, end > start && buffer[end - 1] === 13 ? end - 1 : end);
}
