import type { WriteStall } from '../serve/stalled-writes.js';

/** The line `serve --http` and `dev` print for a connection closed because its client stopped reading. */
export function writeStallLine(stall: WriteStall): string {
  return (
    `toolhost: closed the connection of ${stall.remote}: it read nothing of its answers for ` +
    `${Math.round(stall.stalledMs / 1000)} s (serve.writeStallMs)\n`
  );
}
