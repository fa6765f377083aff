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
  /** The start of a line whose end has not come yet. */
  #rest: Buffer | undefined;

  constructor(maxBytes = Number.POSITIVE_INFINITY) {
    this.#maxBytes = maxBytes;
  }

  /**
   * The lines `chunk` completes, in order. Throws, and forgets what it held, when what is held
   * would grow past the limit (as the SDK's buffer does).
   */
  push(chunk: Buffer): string[] {
    const held = this.#rest?.length ?? 0;
    if (held + chunk.length > this.#maxBytes) {
      this.#rest = undefined;
      throw new Error(`ReadBuffer exceeded maximum size of ${this.#maxBytes} bytes`);
    }
    const buffer = this.#rest === undefined ? chunk : Buffer.concat([this.#rest, chunk]);
    const lines: string[] = [];
    let start = 0;
    for (let end = buffer.indexOf(10); end !== -1; end = buffer.indexOf(10, start)) {
      lines.push(buffer.toString('utf8', start, end > start && buffer[end - 1] === 13 ? end - 1 : end));
      start = end + 1;
    }
    this.#rest = start === buffer.length ? undefined : buffer.subarray(start);
    return lines;
  }

  /** The start of a line whose end has not come yet, if any. */
  get held(): Buffer | undefined {
    return this.#rest;
  }
}
