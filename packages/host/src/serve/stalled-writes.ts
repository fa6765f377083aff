import type { Server } from 'node:http';
import type { Socket } from 'node:net';

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

/** The shortest time between two sweeps, ms, whatever the stall time (a test may set 1 ms). */
const MIN_SWEEP_MS = 50;

/**
 * Closes the connections of `server` whose client has stopped reading: output is waiting in the
 * server and none of it has gone to the kernel for `stallMs`. Without this, a client that sends
 * calls and never reads their answers keeps every answer it asked for in serve's memory for as
 * long as it keeps its sockets open (Node's HTTP server has timeouts for a request coming in, none
 * for a response going out): a 4 MB result a socket, as many sockets as it opens.
 *
 * Any progress (a write the kernel took) starts the wait again, so only a connection that moved
 * nothing for the whole of `stallMs` is closed; what its requests were still writing ends with it
 * (`node-web.ts` cancels their streams on `close`), and the client gets a reset connection.
 * Progress shows at the kernel's grain, not the client's: Linux lets a full socket be written
 * again only once about half of its send buffer has been read (measured on loopback: steps of
 * ≈ 1.5 MB, 30 s apart for a client reading a large answer at 50 KB/s, 70 s apart at 20 KB/s). So
 * a client that reads less than that in `stallMs` while a large answer waits for it is taken for
 * stalled: at the default 60 s, one slower than ≈ 25 KB/s; raise `serve.writeStallMs` for clients
 * on links that slow.
 * Proxies' send timeouts (nginx's `send_timeout`, 60 s) count progress the same way.
 *
 * A connection whose output is all written is the keep-alive timeout's business, not this one's.
 * One sweep of every open connection each `stallMs / 4` (at least `MIN_SWEEP_MS`; unref'd: it
 * never keeps a process alive), nothing on the path of a call. A sweep that comes late (this
 * process was busy for longer than the sweep's period, the client's reads maybe with it) counts
 * no connection as stalled. `onStall` hears of each connection closed; what it throws is dropped.
 */
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
  const period = Math.max(MIN_SWEEP_MS, Math.floor(stallMs / 4));
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
        try {
          onStall?.({ remote, waitingBytes: queued, stalledMs: Math.round(now - seen.since) });
        } catch {
          // A listener's failure is its own: the sweep goes on to the other connections.
        }
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
