import type { JSONRPCMessage, MessageExtraInfo, Transport } from '@modelcontextprotocol/client';

/**
 * A bridged call's progress, read at the transport. The SDK client hands a progress notification
 * to its callback a microtask later but settles the response at once, so when a server's last
 * notifications and its result arrive in one read, those notifications find the call gone and
 * are dropped (typescript-sdk #2580): a quick tool's progress was mostly lost. Read here, in the
 * order the messages arrived, each reaches its call before the result does. The calls carry
 * tokens of this tap's own (`toolhost-<n>`), so the client never sees their progress.
 */

/** What one progress notification says. */
export interface ProgressUpdate {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

const PREFIX = 'toolhost-';

export class ProgressTap {
  #next = 0;
  readonly #calls = new Map<string, (update: ProgressUpdate) => void>();

  /** Reads `transport`'s messages before the client that connected it (call after `connect`). */
  attach(transport: Transport): void {
    const inner = transport.onmessage;
    transport.onmessage = <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => {
      if (this.#take(message)) return;
      inner?.call(transport, message, extra);
    };
  }

  /** A token for one call's `_meta.progressToken`; `close` once the call has ended. */
  open(listener: (update: ProgressUpdate) => void): { token: string; close: () => void } {
    this.#next += 1;
    const token = `${PREFIX}${this.#next}`;
    this.#calls.set(token, listener);
    return { token, close: () => this.#calls.delete(token) };
  }

  /** True when `message` is progress of one of this tap's tokens (handled, or late and dropped). */
  #take(message: JSONRPCMessage): boolean {
    if (!('method' in message) || message.method !== 'notifications/progress') return false;
    const params = message.params as
      | { progressToken?: unknown; progress?: unknown; total?: unknown; message?: unknown }
      | undefined;
    const token = params?.progressToken;
    if (typeof token !== 'string' || !token.startsWith(PREFIX)) return false;
    if (typeof params?.progress !== 'number') return true;
    this.#calls.get(token)?.({
      progress: params.progress,
      ...(typeof params.total === 'number' ? { total: params.total } : {}),
      ...(typeof params.message === 'string' ? { message: params.message } : {}),
    });
    return true;
  }
}
