import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { coalescing } from '../../src/serve/stdio.js';

/** A sink that records each write it is handed: one entry per write the process would make. */
function sink() {
  const writes: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      writes.push(String(chunk));
      done();
    },
    writev(chunks, done) {
      writes.push(chunks.map((c) => String(c.chunk)).join(''));
      done();
    },
  });
  return { stream, writes };
}

describe('coalescing stdout', () => {
  it('sends the messages written in one turn in one write, in order, by the next tick', async () => {
    const { stream, writes } = sink();
    const out = coalescing(stream);
    expect(out.write('a\n')).toBe(true);
    await Promise.resolve();
    out.write('b\n');
    out.write('c\n');
    expect(writes).toEqual([]);
    await new Promise((resolve) => process.nextTick(resolve));
    expect(writes).toEqual(['a\nb\nc\n']);
    out.write('d\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual(['a\nb\nc\n', 'd\n']);
  });

  it('runs what waits for the write after it, never before (a reply is recorded as answered once it is out)', async () => {
    const { stream, writes } = sink();
    const out = coalescing(stream);
    const seen: string[][] = [];
    out.write('a\n');
    out.afterWrite(() => seen.push([...writes]));
    expect(seen).toEqual([]);
    await new Promise((resolve) => process.nextTick(resolve));
    expect(seen).toEqual([['a\n']]);
    // Nothing corked: at once.
    out.afterWrite(() => seen.push(['now']));
    expect(seen).toEqual([['a\n'], ['now']]);
  });

  it('is the stream otherwise: its listeners and state are the stream’s own', () => {
    const { stream } = sink();
    const out = coalescing(stream);
    const onError = () => {};
    out.once('error', onError);
    expect(stream.listeners('error')).toContain(onError);
    out.off('error', onError);
    expect(stream.listeners('error')).not.toContain(onError);
    expect(out.writable).toBe(true);
  });
});
