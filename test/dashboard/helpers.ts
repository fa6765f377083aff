import { type IncomingMessage, request } from 'node:http';

/** An event as the test reads it: loosely typed JSON (the contract's shapes are asserted field by field). */
// biome-ignore lint/suspicious/noExplicitAny: tests read event fields freely and assert them.
export type Ev = Record<string, any>;

/** One parsed server-sent event (or comment) as the dashboard streams it. */
export interface SseMessage {
  readonly id?: string;
  readonly event?: string;
  readonly data?: string;
  readonly comment?: string;
}

/**
 * A small SSE reader over `http.get`: collects messages and lets a test await one matching a test.
 * `pause()` stops reading (the socket backs up), for the slow-client test.
 */
export function openEvents(url: string, headers: Record<string, string> = {}) {
  const messages: SseMessage[] = [];
  const waiters = new Set<() => void>();
  let response: IncomingMessage | undefined;
  let ended = false;
  let buffer = '';
  const parse = (block: string) => {
    const message: Record<string, string> = {};
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) message.comment = line.slice(1).trim();
      else {
        const colon = line.indexOf(':');
        const field = line.slice(0, colon);
        const value = line.slice(colon + 1).replace(/^ /, '');
        message[field] = message[field] === undefined ? value : `${message[field]}\n${value}`;
      }
    }
    messages.push(message);
  };
  const opened = new Promise<IncomingMessage>((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      response = res;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          parse(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf('\n\n');
        }
        for (const waiter of [...waiters]) waiter();
      });
      res.on('close', () => {
        ended = true;
        for (const waiter of [...waiters]) waiter();
      });
      resolve(res);
    });
    req.on('error', reject);
    req.end();
  });
  const events = () =>
    messages.filter((m) => m.data !== undefined).map((m) => JSON.parse(m.data as string) as Ev);
  return {
    opened,
    messages,
    events,
    get ended() {
      return ended;
    },
    /** The first event (seen or coming) that `test` accepts. */
    until(test: (event: Ev) => boolean, what = 'a matching event'): Promise<Ev> {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = events().find(test);
          if (found !== undefined) {
            waiters.delete(check);
            resolve(found);
          } else if (ended) {
            waiters.delete(check);
            reject(new Error(`stream ended without ${what}; got ${JSON.stringify(messages.slice(-5))}`));
          }
        };
        waiters.add(check);
        check();
      });
    },
    /** Resolves once the comment `text` arrived (`connected`: the hub has attached the stream). */
    comment(text: string): Promise<void> {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (messages.some((m) => m.comment === text)) {
            waiters.delete(check);
            resolve();
          } else if (ended) {
            waiters.delete(check);
            reject(new Error(`stream ended without the comment "${text}"`));
          }
        };
        waiters.add(check);
        check();
      });
    },
    /** Resolves once the stream has ended (the server closed it). */
    closed(): Promise<void> {
      return new Promise((resolve) => {
        const check = () => {
          if (ended) {
            waiters.delete(check);
            resolve();
          }
        };
        waiters.add(check);
        check();
      });
    },
    close() {
      response?.destroy();
    },
  };
}

/** A raw request with exactly the headers given (fetch forbids setting Host and Origin). */
export function raw(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: IncomingMessage['headers']; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', headers: options.headers ?? {} }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}
