/**
 * The executor channel: length-prefixed frames over one byte stream (a socket pair on the child's
 * fd 3), written in batches and read across arbitrary chunk splits.
 *
 * A frame is `[u32 length of the rest][u32 length of head][head][body]`, big-endian, both parts
 * UTF-8. The head is a small JSON message (`ipc.ts`); the body is text passed through as it is —
 * a request already serialized by the host, a reply as the plugin runtime serialized it inside its
 * isolate — so a call is serialized once each way and parsed once where it is used. Lengths, not
 * delimiters, bound the body: nothing inside it can end a frame early or forge the next one.
 * UTF-8 cannot carry a lone surrogate; nothing sent needs to: heads and bodies are JSON from
 * `JSON.stringify`, which escapes them, or a text reply, which the runtime sends raw only when the
 * text is well-formed (runtime/replies.ts), and bundles are ASCII (esbuild's default charset).
 */

import { constants } from 'node:buffer';

/** The largest frame read: a body beyond V8's longest string could not be decoded anyway. */
export const MAX_FRAME_BYTES = constants.MAX_STRING_LENGTH;

/** Bytes before the head: the frame's length and the head's length. */
const PREFIX = 8;

/** A decoded frame: the head parsed (an object with a string `t`), the body as text. */
export interface Frame {
  readonly head: { readonly t: string } & Record<string, unknown>;
  readonly body: string;
}

/** Where a `FrameWriter` writes: a stream's `write`, which says when its buffer is full. */
export interface FrameSink {
  write(chunk: Buffer): boolean;
  once(event: 'drain', listener: () => void): unknown;
}

/**
 * Queues frames and writes every frame queued in one turn with one `write` of a joined buffer, or,
 * given a first group size, in groups that leave while the turn goes on. When the sink is full it
 * waits for `drain`, still queueing (nothing is dropped), and then writes everything in the order
 * it was sent.
 */
export class FrameWriter {
  readonly #sink: FrameSink;
  readonly #schedule: (flush: () => void) => void;
  readonly #firstGroup: number;
  /** Frames queued that make this turn's next group leave at once; 0: none before the turn ends. */
  #group: number;
  /** Heads and bodies, alternating, in the order sent. */
  #queue: string[] = [];
  #scheduled = false;
  #blocked = false;
  readonly #flush = () => {
    this.#scheduled = false;
    this.#group = this.#firstGroup;
    this.flush();
  };

  /**
   * `schedule` runs the batch's write; by default `setImmediate`, just after this turn's I/O.
   * Not `queueMicrotask`: measured in the executor under 5,000 calls in flight, a microtask flush
   * wrote nearly every reply alone (30,378 writes for 31,087 frames, against 13,010 writes for
   * 30,164 frames with `setImmediate`), and the host's calls of one burst left in 1,841 writes
   * instead of 59: the frames of one turn are not all queued within one microtask checkpoint.
   *
   * `firstGroup` (0: none) lets a long turn's frames leave while it goes on: once that many are
   * queued they are written at once, then the next group at twice the size, and so on; the rest
   * when the turn ends. The executor answers so: its replies to the requests of one read went out
   * in one write after the last of them had run, and the host, whose callers send their next calls
   * only on an answer, sat idle meanwhile, then the executor while the host worked. Measured at 64
   * calls in flight (bench/boundary.mjs's echo, 50,000 calls a round, against the build before):
   * 53,000-61,000 calls/s in one write a read, 75,000-99,000 with a first group of 16 (4 to 32
   * did as well, within the noise). Doubling keeps a read of thousands of requests (5,000 in
   * flight) to a handful of writes.
   */
  constructor(sink: FrameSink, schedule: (flush: () => void) => void = setImmediate, firstGroup = 0) {
    this.#sink = sink;
    this.#schedule = schedule;
    this.#firstGroup = firstGroup;
    this.#group = firstGroup;
  }

  /**
   * Queues a frame; it is written with the others of this turn (or of its group), or at once with
   * those queued before it when `now`: the host's request while no other is in flight, which has
   * nothing to wait for (its write came ≈ 2 µs later at the end of the turn, on every sequential
   * call's path).
   */
  send(head: string, body = '', now = false): void {
    this.#queue.push(head, body);
    if (now) {
      this.flush();
    } else if (this.#group > 0 && this.#queue.length >= this.#group * 2) {
      this.#group *= 2;
      this.flush();
    }
    if (!this.#scheduled && !this.#blocked) {
      this.#scheduled = true;
      this.#schedule(this.#flush);
    }
  }

  /** Writes what is queued now, in one write (unless the sink is full: then on `drain`). */
  flush(): void {
    const queue = this.#queue;
    if (this.#blocked || queue.length === 0) return;
    this.#queue = [];
    if (!this.#sink.write(encodeFrames(queue))) {
      this.#blocked = true;
      this.#sink.once('drain', () => {
        this.#blocked = false;
        this.flush();
      });
    }
  }

  /** Frames queued and not yet handed to the sink. */
  get queued(): number {
    return this.#queue.length / 2;
  }
}

/** Heads and bodies, alternating, as one buffer of frames. */
export function encodeFrames(parts: readonly string[]): Buffer {
  let total = 0;
  const sizes = new Array<number>(parts.length);
  for (let i = 0; i < parts.length; i++) {
    const size = Buffer.byteLength(parts[i] as string);
    sizes[i] = size;
    total += size;
  }
  total += (parts.length / 2) * PREFIX;
  const buffer = Buffer.allocUnsafe(total);
  let at = 0;
  for (let i = 0; i < parts.length; i += 2) {
    const head = sizes[i] as number;
    const body = sizes[i + 1] as number;
    buffer.writeUInt32BE(4 + head + body, at);
    buffer.writeUInt32BE(head, at + 4);
    at += PREFIX;
    at += buffer.write(parts[i] as string, at);
    if (body > 0) at += buffer.write(parts[i + 1] as string, at);
  }
  return buffer;
}

/** Input to a `FrameReader` that is not a frame; the message says what was wrong. */
export class MalformedFrameError extends Error {
  readonly code = 'malformed-frame';
}

/**
 * Reads frames from chunks split anywhere. A frame that spans chunks is joined once, when all of
 * it has arrived (a 10 MB reply costs one copy, not one per chunk). Input that is not a frame
 * (a length out of range, a head that is not a JSON object with a string `t`) stops the reader
 * for good: `onMalformed` hears why, and later chunks are ignored.
 */
export class FrameReader {
  readonly #onFrame: (frame: Frame) => void;
  readonly #onMalformed: (error: MalformedFrameError) => void;
  /** Chunks of an incomplete frame, and their total size. */
  #parts: Buffer[] = [];
  #size = 0;
  /** Bytes needed before the incomplete frame can be read. */
  #need = 0;
  #broken = false;

  constructor(onFrame: (frame: Frame) => void, onMalformed: (error: MalformedFrameError) => void) {
    this.#onFrame = onFrame;
    this.#onMalformed = onMalformed;
  }

  /** Bytes of an incomplete frame held (non-zero at the end of the stream means it was cut off). */
  get pending(): number {
    return this.#size;
  }

  get broken(): boolean {
    return this.#broken;
  }

  push(chunk: Buffer): void {
    if (this.#broken) return;
    let buffer = chunk;
    if (this.#size > 0) {
      this.#parts.push(chunk);
      this.#size += chunk.length;
      if (this.#size < this.#need) return;
      buffer = Buffer.concat(this.#parts, this.#size);
      this.#parts = [];
      this.#size = 0;
    }
    let at = 0;
    while (buffer.length - at >= PREFIX) {
      const length = buffer.readUInt32BE(at);
      const head = buffer.readUInt32BE(at + 4);
      if (length < 4 || length > MAX_FRAME_BYTES || head > length - 4) {
        this.#fail(`a frame header says ${length} bytes with a head of ${head}`);
        return;
      }
      const end = at + 4 + length;
      if (end > buffer.length) {
        this.#need = end - at;
        break;
      }
      const headEnd = at + PREFIX + head;
      const frame = this.#decode(buffer.toString('utf8', at + PREFIX, headEnd), buffer, headEnd, end);
      if (frame === undefined) return;
      at = end;
      this.#onFrame(frame);
      if (this.#broken) return;
    }
    if (at < buffer.length) {
      const rest = buffer.subarray(at);
      this.#parts.push(rest);
      this.#size = rest.length;
      if (rest.length < PREFIX) this.#need = PREFIX;
    }
  }

  #decode(text: string, buffer: Buffer, from: number, to: number): Frame | undefined {
    let head: unknown;
    try {
      head = JSON.parse(text);
    } catch {
      this.#fail(`a frame head is not JSON: ${JSON.stringify(text.slice(0, 80))}`);
      return undefined;
    }
    if (typeof head !== 'object' || head === null || typeof (head as { t?: unknown }).t !== 'string') {
      this.#fail(`a frame head is not a message: ${JSON.stringify(text.slice(0, 80))}`);
      return undefined;
    }
    return { head: head as Frame['head'], body: from === to ? '' : buffer.toString('utf8', from, to) };
  }

  #fail(reason: string): void {
    this.#broken = true;
    this.#parts = [];
    this.#size = 0;
    this.#onMalformed(new MalformedFrameError(reason));
  }
}
