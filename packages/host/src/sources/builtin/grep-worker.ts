/**
 * grep's matching thread. The host sends the pattern, then batches of files as bytes; this thread
 * decodes each file and tests its lines, replying once per message, in order. Before each file it
 * writes the file's id to the shared progress slot, so the host can tell which file a stall is on. It
 * holds no state the host cannot rebuild, so the host may terminate it at any moment.
 * Runs from dist/: after changing it (or what it imports), run `npm run build`.
 */

import { parentPort, workerData } from 'node:worker_threads';
import { messageOf } from '../../util/errors.js';
import { type LineTest, matchLines, nativeLineTest } from './grep-match.js';
import {
  type Engine,
  type FileMatched,
  type FromWorker,
  IDLE,
  type MatchThreadData,
  type ToWorker,
} from './grep-protocol.js';

const port = parentPort;
if (port === null) throw new Error('grep-worker runs only as a worker thread');
const { progress } = workerData as MatchThreadData;

let test: LineTest | undefined;
let limit = 0;
// Compiling the linear engine loads re2js asynchronously; the chain keeps replies in message order.
let queue: Promise<void> = Promise.resolve();

port.on('message', (message: ToWorker) => {
  queue = queue.then(() => handle(message));
});

function reply(message: FromWorker): void {
  port?.postMessage(message);
}

async function handle(message: ToWorker): Promise<void> {
  if (message.kind === 'compile') {
    test = undefined;
    try {
      test = await compile(message.engine, message.pattern, message.ignoreCase);
      limit = message.limit;
      reply({ kind: 'compiled' });
    } catch (error) {
      const reason = error instanceof SyntaxError ? 'invalid' : 'unsupported';
      reply({ kind: 'rejected', reason, message: messageOf(error) });
    }
    return;
  }
  const matched: FileMatched[] = [];
  for (const { id, data } of message.files) {
    Atomics.store(progress, 0, id);
    try {
      if (test === undefined) throw new Error('no pattern compiled');
      const text = Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8');
      matched.push({ id, hits: matchLines(text, test, limit) });
    } catch (error) {
      Atomics.store(progress, 0, IDLE);
      reply({ kind: 'failed', id, message: messageOf(error), matched });
      return;
    }
  }
  Atomics.store(progress, 0, IDLE);
  reply({ kind: 'matched', files: matched });
}

async function compile(engine: Engine, pattern: string, ignoreCase: boolean): Promise<LineTest> {
  if (engine === 'native') return nativeLineTest(pattern, ignoreCase);
  // Loaded only when needed: re2js takes tens of milliseconds to load.
  const { linearLineTest } = await import('./grep-linear.js');
  return linearLineTest(pattern, ignoreCase);
}
