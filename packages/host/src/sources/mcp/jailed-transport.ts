import type { ChildProcess } from 'node:child_process';
import { PassThrough } from 'node:stream';
import {
  type JSONRPCMessage,
  ReadBuffer,
  serializeMessage,
  type Transport,
} from '@modelcontextprotocol/client';

/**
 * The SDK's stdio client transport, for a server started in a jail: the SDK's own spawns the
 * command itself and cannot hand bubblewrap its seccomp filter on a file descriptor, so this one
 * takes a `start` that spawns the process (and opens its network gate first), then speaks
 * newline-delimited JSON-RPC over its stdin and stdout exactly as the SDK's does, and stops it the
 * same way: stdin closed, then SIGTERM, then SIGKILL, 2 s apart.
 */
export class JailedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** The server's stderr, handed out before `start()` so no early line is lost. */
  readonly stderr = new PassThrough();
  readonly #readBuffer = new ReadBuffer();
  readonly #prepare: () => Promise<void>;
  readonly #spawn: () => ChildProcess;
  readonly #release: () => Promise<void>;
  #process: ChildProcess | undefined;
  #started = false;

  /**
   * `prepare` runs first (the network gate opens), then `spawn`, whose `spawn` and `error` events
   * are listened to in the same turn (they come on the next tick); `release` runs once the
   * process is gone (the gate closes).
   */
  constructor(prepare: () => Promise<void>, spawn: () => ChildProcess, release: () => Promise<void>) {
    this.#prepare = prepare;
    this.#spawn = spawn;
    this.#release = release;
  }

  get pid(): number | undefined {
    return this.#process?.pid;
  }

  async start(): Promise<void> {
    if (this.#started) throw new Error('JailedStdioTransport already started');
    this.#started = true;
    await this.#prepare();
    const child = this.#spawn();
    this.#process = child;
    await new Promise<void>((resolve, reject) => {
      child.once('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.once('spawn', () => resolve());
    });
    child.once('close', () => {
      this.#process = undefined;
      void this.#release();
      this.onclose?.();
    });
    child.stdin?.on('error', (error) => this.onerror?.(error));
    child.stdout?.on('data', (chunk: Buffer) => {
      try {
        this.#readBuffer.append(chunk);
        for (;;) {
          let message: JSONRPCMessage | null;
          try {
            message = this.#readBuffer.readMessage();
          } catch (error) {
            this.onerror?.(error as Error);
            continue;
          }
          if (message === null) break;
          this.onmessage?.(message);
        }
      } catch (error) {
        this.onerror?.(error as Error);
        void this.close();
      }
    });
    child.stdout?.on('error', (error) => this.onerror?.(error));
    child.stderr?.pipe(this.stderr);
  }

  async close(): Promise<void> {
    const child = this.#process;
    if (child !== undefined) {
      this.#process = undefined;
      const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
      const within = (ms: number) =>
        Promise.race([closed, new Promise<void>((resolve) => setTimeout(resolve, ms).unref())]);
      try {
        child.stdin?.end();
      } catch {
        // Already closed.
      }
      await within(2000);
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await within(2000);
      }
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    } else if (!this.#started) {
      await this.#release();
    }
    this.#readBuffer.clear();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.#process?.stdin;
      if (stdin == null) {
        reject(new Error('Not connected'));
        return;
      }
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }
}
