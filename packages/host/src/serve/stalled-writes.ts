import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Closes the connections of `server` whose client has stopped reading: output is waiting in the
 * server and none of it has reached the kernel for `stallMs`. Without this, a client that sends
 * calls and never reads their answers keeps every answer it asked for in serve's memory for as
 * long as it keeps its sockets open (Node's HTTP server has timeouts for a request coming in, none
 * for a response going out): a 4 MB result a socket, as many sockets as it opens.
 *
 * A slow client is not a stalled one: any progress (a write the kernel took) starts the wait
 * again, so only a connection that moved nothing for the whole of `stallMs` is closed; what its
 * requests were still writing ends with it (`node-web.ts` cancels their streams on `close`), and
 * the client gets a reset connection. Writes are handed to a socket in pieces of at most
 * `WRITE_PIECE_BYTES` (`node-web.ts`), so progress shows at that grain even on a slow link.
 *
 * A connection whose output is all written is the keep-alive timeout's business, not this one's.
 * One sweep of every open connection each `stallMs / 4` (unref'd: it never keeps a process
 * alive), nothing on the path of a call. A sweep that comes late (this process was busy for longer
 * than the sweep's period, the client's reads maybe with it) counts no connection as stalled.
 */
/** A connection closed because its client stopped reading, as `onStall` hears of it. */
export interface WriteStall {
  /** The client's address and port, as the socket knew them. */
  readonly remote: string;
  /**
   * Bytes that were in the connection's queue when it was closed (a response writes a piece at a
   * time, `node-web.ts`: the rest of it was still in its stream).
   */
  readonly waitingBytes: number;
  /** How long none of it had gone out, ms. */
  readonly stalledMs: number;
}

export function closeStalledWrites(
  server: Server,
  stallMs: number,
  onStall?: (stall: WriteStall) => void,
): () => void {
  /** Each connection with output waiting: how much of it had gone out, and since when. */
  const waiting = new Map<Socket, { flushed: number; since: number }>();
  const open = new Set<Socket>();
  const track = (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => {
      open.delete(socket);
      waiting.delete(socket);
    });
  };
  server.on('connection', track);
  const period = Math.max(1, Math.floor(stallMs / 4));
  let last = performance.now();
  const sweep = () => {
    const now = performance.now();
    const late = now - last > period * 2;
    last = now;
    for (const socket of open) {
      const queued = socket.writableLength;
      if (queued === 0 || socket.destroyed) {
        waiting.delete(socket);
        continue;
      }
      // `bytesWritten` counts what is queued as well: what the kernel took is the rest.
      const flushed = socket.bytesWritten - queued;
      const seen = waiting.get(socket);
      if (seen === undefined || seen.flushed !== flushed || late) {
        waiting.set(socket, { flushed, since: now });
      } else if (now - seen.since >= stallMs) {
        waiting.delete(socket);
        const remote = `${socket.remoteAddress ?? 'unknown'}:${socket.remotePort ?? '?'}`;
        socket.destroy();
        onStall?.({ remote, waitingBytes: queued, stalledMs: Math.round(now - seen.since) });
      }
    }
  };
  const timer = setInterval(sweep, period);
  timer.unref();
  return () => {
    clearInterval(timer);
    server.off('connection', track);
    open.clear();
    waiting.clear();
  };
}
