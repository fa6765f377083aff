import type { ServerContext } from '@modelcontextprotocol/server';

/** The last progress notification a call sent, while it runs. */
export interface ProgressWrites {
  last?: Promise<void>;
  /** When the last one was written (`performance.now()`). */
  at?: number;
}

/**
 * How long a result waits after its call's last progress notification was written, where the
 * client cannot be asked (below). The SDK clients (v1 and v2) handle a notification a microtask
 * later but a response at once, so a progress notification read in the same chunk as its call's
 * result finds its handler gone and is dropped (typescript-sdk #2580): the notification must reach
 * the client in an earlier read. Separate writes are not enough (a quick tool's progress and result
 * were both in the pipe before the client read, 128–202 of 300 delivered over stdio); a gap after
 * the last write mostly is (at load 4–5: 1 ms delivered 97 %, 5 ms 100 % of 600), but a client
 * whose thread is busy reads later, and under a full test suite 10 ms still lost some, so 20. A
 * bet.
 */
const PROGRESS_GAP_MS = 20;

/** How long a result waits for the client's answer to the ping that follows its progress. */
const PONG_WAIT_MS = 2_000;

/**
 * Waits until the call's progress has reached the client before its result goes. On a 2025
 * connection (`legacy`: its context) that is a guarantee: a `ping` follows the last progress, and
 * the SDK clients handle a request, as a notification, a microtask after reading it, so their
 * answer comes after the progress handler ran. A client that does not answer within
 * PONG_WAIT_MS, and every 2026-07-28 client (whose revision has no server-to-client requests),
 * gets the gap.
 */
export async function progressFlushed(
  writes: ProgressWrites,
  legacy: ServerContext | undefined,
): Promise<void> {
  await writes.last;
  if (legacy !== undefined) {
    try {
      await legacy.mcpReq.send({ method: 'ping' }, { timeout: PONG_WAIT_MS });
      return;
    } catch {
      // No answer in time: the gap below.
    }
  }
  const wait = PROGRESS_GAP_MS - (performance.now() - (writes.at ?? 0));
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}
