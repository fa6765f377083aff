import { EventEmitter } from 'node:events';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  encodeFrames,
  type Frame,
  FrameReader,
  FrameWriter,
  type MalformedFrameError,
} from '../../src/sandbox/channel.js';

/** A reader that keeps what it read, and why it stopped. */
function collector() {
  const frames: Frame[] = [];
  const errors: MalformedFrameError[] = [];
  const reader = new FrameReader(
    (frame) => frames.push(frame),
    (error) => errors.push(error),
  );
  return { reader, frames, errors };
}

/** `buffer` cut at the given offsets (sorted, deduplicated, any of them may be 0 or the end). */
function split(buffer: Buffer, cuts: readonly number[]): Buffer[] {
  const at = [...new Set(cuts.map((cut) => cut % (buffer.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let from = 0;
  for (const cut of [...at, buffer.length]) {
    chunks.push(buffer.subarray(from, cut));
    from = cut;
  }
  return chunks;
}

/** A sink that takes every write, or refuses more until `drain` while `full` is set. */
class Sink extends EventEmitter {
  readonly writes: Buffer[] = [];
  full = false;
  write(chunk: Buffer): boolean {
    this.writes.push(Buffer.from(chunk));
    return !this.full;
  }
}

const message = fc.record({
  t: fc.constantFrom('call', 'reply', 'log', 'capability'),
  id: fc.nat(),
  text: fc.string({ unit: 'grapheme' }),
});
const frames = fc.array(fc.tuple(message, fc.string({ unit: 'binary' })), { maxLength: 20 });

describe('executor channel frames', () => {
  it('read back whole and in order however the stream is cut into chunks', () => {
    fc.assert(
      fc.property(frames, fc.array(fc.nat(), { maxLength: 30 }), (sent, cuts) => {
        const bytes = encodeFrames(sent.flatMap(([head, body]) => [JSON.stringify(head), body]));
        const { reader, frames: read, errors } = collector();
        for (const chunk of split(bytes, cuts)) reader.push(chunk);
        expect(errors).toEqual([]);
        expect(read.map((frame) => [frame.head, frame.body])).toEqual(sent);
        expect(reader.pending).toBe(0);
      }),
    );
  });

  it('hold a partial frame until the rest arrives, and say how much is held', () => {
    const bytes = encodeFrames([JSON.stringify({ t: 'reply', id: 1 }), 'body']);
    const { reader, frames: read } = collector();
    reader.push(bytes.subarray(0, 5));
    reader.push(bytes.subarray(5, bytes.length - 1));
    expect(read).toEqual([]);
    expect(reader.pending).toBe(bytes.length - 1);
    reader.push(bytes.subarray(bytes.length - 1));
    expect(read).toEqual([{ head: { t: 'reply', id: 1 }, body: 'body' }]);
  });

  it('carry a 10 MB body sent in 64 KB chunks as one frame', () => {
    const body = `${'x'.repeat(10 * 1024 * 1024 - 3)}end`;
    const bytes = encodeFrames([JSON.stringify({ t: 'reply', id: 7 }), body]);
    const { reader, frames: read } = collector();
    for (let at = 0; at < bytes.length; at += 65_536) reader.push(bytes.subarray(at, at + 65_536));
    expect(read).toHaveLength(1);
    expect(read[0]?.body.length).toBe(body.length);
    expect(read[0]?.body === body).toBe(true);
  });

  it.each([
    ['bytes that are not a frame', Buffer.from('this is not a frame, and it never ends'), /header says/],
    ['a head that is not JSON', encodeFrames(['{"t":', '']), /head is not JSON/],
    ['a head without a string t', encodeFrames(['{"id":1}', '']), /head is not a message/],
    ['a head longer than its frame', Buffer.from([0, 0, 0, 4, 0, 0, 0, 9]), /head of 9/],
  ])('stop at %s, say why once, and ignore what follows', (_, bad, why) => {
    const good = encodeFrames([JSON.stringify({ t: 'pong', id: 0 }), '']);
    const { reader, frames: read, errors } = collector();
    reader.push(Buffer.concat([good, bad]));
    reader.push(good);
    expect(read).toEqual([{ head: { t: 'pong', id: 0 }, body: '' }]);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.message).toMatch(why);
    expect(reader.broken).toBe(true);
  });

  it('never throw on arbitrary bytes: frames or one malformed report', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 64 }), { maxLength: 8 }), (chunks) => {
        const { reader, errors } = collector();
        for (const chunk of chunks) reader.push(Buffer.from(chunk));
        expect(errors.length).toBeLessThanOrEqual(1);
      }),
    );
  });
});

describe('the frame writer', () => {
  const flushNow = (flush: () => void) => queueMicrotask(flush);

  it('writes the frames of one turn in one write', async () => {
    const sink = new Sink();
    const writer = new FrameWriter(sink, flushNow);
    for (let id = 0; id < 100; id++) writer.send(JSON.stringify({ t: 'reply', id }), `body ${id}`);
    await Promise.resolve();
    expect(sink.writes).toHaveLength(1);
    const { reader, frames: read } = collector();
    reader.push(sink.writes[0] as Buffer);
    expect(read.map((frame) => frame.body)).toEqual(Array.from({ length: 100 }, (_, id) => `body ${id}`));
  });

  it('given a first group, writes a long turn in doubling groups as they fill, the rest when it ends', async () => {
    const sink = new Sink();
    const writer = new FrameWriter(sink, flushNow, 16);
    const framesPerWrite = () =>
      sink.writes.map((chunk) => {
        const { reader, frames: read } = collector();
        reader.push(chunk);
        return read.map((frame) => frame.head.id);
      });
    for (let id = 0; id < 100; id++) writer.send(JSON.stringify({ t: 'reply', id }));
    // Two groups have left before the turn ends: 16 frames, then 32.
    expect(framesPerWrite().map((ids) => ids.length)).toEqual([16, 32]);
    await Promise.resolve();
    expect(framesPerWrite().map((ids) => ids.length)).toEqual([16, 32, 52]);
    // The next turn starts again at the first group.
    for (let id = 100; id < 120; id++) writer.send(JSON.stringify({ t: 'reply', id }));
    await Promise.resolve();
    expect(framesPerWrite().map((ids) => ids.length)).toEqual([16, 32, 52, 16, 4]);
    expect(framesPerWrite().flat()).toEqual(Array.from({ length: 120 }, (_, id) => id));
  });

  it('writes a frame sent now at once, with the frames queued before it', async () => {
    const sink = new Sink();
    const writer = new FrameWriter(sink, flushNow);
    writer.send(JSON.stringify({ t: 'load', id: 0 }));
    writer.send(JSON.stringify({ t: 'call', id: 1 }), 'request', true);
    expect(sink.writes).toHaveLength(1);
    writer.send(JSON.stringify({ t: 'call', id: 2 }));
    expect(sink.writes).toHaveLength(1);
    await Promise.resolve();
    const ids = sink.writes.map((chunk) => {
      const { reader, frames: read } = collector();
      reader.push(chunk);
      return read.map((frame) => frame.head.id);
    });
    expect(ids).toEqual([[0, 1], [2]]);
  });

  it('keeps queueing while the sink is full and writes everything in order after drain', async () => {
    const sink = new Sink();
    const writer = new FrameWriter(sink, flushNow);
    sink.full = true;
    writer.send(JSON.stringify({ t: 'reply', id: 0 }));
    await Promise.resolve();
    expect(sink.writes).toHaveLength(1); // accepted, but the sink asked to wait
    for (let id = 1; id < 50; id++) writer.send(JSON.stringify({ t: 'reply', id }));
    writer.flush();
    await Promise.resolve();
    expect(sink.writes).toHaveLength(1);
    expect(writer.queued).toBe(49);
    sink.full = false;
    sink.emit('drain');
    expect(writer.queued).toBe(0);
    const { reader, frames: read } = collector();
    for (const chunk of sink.writes) reader.push(chunk);
    expect(read.map((frame) => frame.head.id)).toEqual(Array.from({ length: 50 }, (_, id) => id));
  });
});
