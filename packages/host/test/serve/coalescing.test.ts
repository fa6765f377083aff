import { PassThrough, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { describe, expect, it } from 'vitest';
import { coalescing } from '../../src/serve/coalescing.js';

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
    const onFinish = () => {};
    out.once('finish', onFinish);
    expect(stream.listeners('finish')).toContain(onFinish);
    out.off('finish', onFinish);
    expect(stream.listeners('finish')).not.toContain(onFinish);
    // A lasting 'error' listener (the SDK transport's own) is the stream's, and so is its removal.
    const onError = () => {};
    out.on('error', onError);
    expect(stream.listeners('error')).toContain(onError);
    out.off('error', onError);
    expect(stream.listeners('error')).not.toContain(onError);
    expect(out.writable).toBe(true);
  });
});

describe("the SDK transport's waits on a stdout that is behind", () => {
  /** A stream that takes each write only when `flush` is called: a client that reads slowly. */
  function slowSink() {
    const pending: (() => void)[] = [];
    const stream = new Writable({
      highWaterMark: 64,
      write(_chunk, _encoding, done) {
        pending.push(done);
      },
      writev(_chunks, done) {
        pending.push(done);
      },
    });
    const flush = async () => {
      while (pending.length > 0) {
        pending.shift()?.();
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    return { stream, flush };
  }
  const turn = () => new Promise((resolve) => setImmediate(resolve));
  const response = (id: number) => ({ jsonrpc: '2.0' as const, id, result: { content: [] } });

  it('take one listener each on the stream, warn of no leak, and all end when it drains', async () => {
    const { stream, flush } = slowSink();
    const transport = new StdioServerTransport(new PassThrough(), coalescing(stream));
    await transport.start();
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      let sent = 0;
      const sends = Array.from({ length: 50 }, (_, i) => transport.send(response(i)).then(() => (sent += 1)));
      await turn();
      // Most wait for the stream to drain (the first few fit its buffer).
      expect(sent).toBeLessThan(5);
      expect(stream.listenerCount('drain')).toBe(1);
      // The transport's lasting listener, and the one the waits share.
      expect(stream.listenerCount('error')).toBe(2);
      await flush();
      await Promise.all(sends);
      expect(sent).toBe(50);
      await turn();
      expect(warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
      await transport.close();
    }
  });

  it('leave no listener on the stream once nothing waits, however many transports came and went', async () => {
    const { stream, flush } = slowSink();
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      for (let round = 0; round < 12; round++) {
        const transport = new StdioServerTransport(new PassThrough(), coalescing(stream));
        await transport.start();
        const sends = Array.from({ length: 5 }, (_, i) => transport.send(response(i)));
        await turn();
        await flush();
        await Promise.all(sends);
        await transport.close();
      }
      expect(stream.listenerCount('drain')).toBe(0);
      // Only the last transport's own (the SDK removes a closed one's when the next starts).
      expect(stream.listenerCount('error')).toBe(1);
      await turn();
      expect(warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it("behave as Node's once: a listener that throws leaves the later ones waiting; removeAllListeners forgets them", () => {
    const { stream } = slowSink();
    const out = coalescing(stream);
    const ran: string[] = [];
    out.once('drain', () => {
      ran.push('a');
      throw new Error('a listener broke');
    });
    out.once('drain', () => ran.push('b'));
    expect(() => stream.emit('drain')).toThrow('a listener broke');
    expect(ran).toEqual(['a']);
    stream.emit('drain');
    expect(ran).toEqual(['a', 'b']);
    expect(stream.listenerCount('drain')).toBe(0);
    out.once('drain', () => ran.push('c'));
    out.removeAllListeners('drain');
    stream.emit('drain');
    expect(ran).toEqual(['a', 'b']);
    // Waiting again after that is heard again.
    out.once('drain', () => ran.push('d'));
    stream.emit('drain');
    expect(ran).toEqual(['a', 'b', 'd']);
  });

  it('fail together when the stream fails', async () => {
    const { stream } = slowSink();
    const transport = new StdioServerTransport(new PassThrough(), coalescing(stream));
    const errors: Error[] = [];
    transport.onerror = (error) => errors.push(error);
    await transport.start();
    const sends = Array.from({ length: 20 }, (_, i) => transport.send(response(i)));
    await turn();
    stream.destroy(new Error('EPIPE: the client is gone'));
    const outcomes = await Promise.allSettled(sends);
    const failed = outcomes.filter((outcome) => outcome.status === 'rejected');
    // Those that had fit the buffer were sent; every other one fails with the stream's error.
    expect(failed.length).toBeGreaterThan(15);
    for (const outcome of failed) expect(String(outcome.reason)).toContain('EPIPE: the client is gone');
    expect(errors.map(String)).toEqual([expect.stringContaining('EPIPE: the client is gone')]);
  });
});
