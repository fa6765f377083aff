import type { McpSessionClose, ToolHost } from '@toolhost/host';

/**
 * Counts the host's live `change` listeners through its public API: every `on('change')` adds
 * one, and its disposer (the first call only) removes it. The host adds and removes change
 * listeners nowhere else, so this is the size of its listener set. Install before serving.
 */
export function countChangeListeners(host: ToolHost): { readonly count: number } {
  const on = host.on.bind(host) as (event: string, listener: never) => () => void;
  let count = 0;
  host.on = ((event: string, listener: never) => {
    const dispose = on(event, listener);
    if (event !== 'change') return dispose;
    count += 1;
    let live = true;
    return () => {
      if (live) count -= 1;
      live = false;
      dispose();
    };
  }) as ToolHost['on'];
  return {
    get count() {
      return count;
    },
  };
}

/** Records `onSessionClose` reports and lets a test await the one (or the number) it expects. */
export function sessionCloses() {
  const seen: McpSessionClose[] = [];
  const waiters = new Set<() => boolean>();
  const until = <T>(check: () => T | undefined): Promise<T> =>
    new Promise((resolve) => {
      const waiter = () => {
        const value = check();
        if (value === undefined) return false;
        resolve(value);
        return true;
      };
      if (!waiter()) waiters.add(waiter);
    });
  return {
    seen,
    onSessionClose: (close: McpSessionClose) => {
      seen.push(close);
      for (const waiter of [...waiters]) if (waiter()) waiters.delete(waiter);
    },
    /** The close of session `id` (already seen, or the next). */
    of: (id: string) => until(() => seen.find((close) => close.id === id)),
    /** Resolves once `n` sessions closed for `reason`. */
    count: (reason: McpSessionClose['reason'], n: number) =>
      until(() => (seen.filter((close) => close.reason === reason).length >= n ? true : undefined)),
  };
}

export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1.0.0' } },
} as const;

export const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
} as const;

/** POSTs one JSON-RPC message the way an MCP client does. */
export function post(url: string, message: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { ...MCP_HEADERS, ...headers },
    body: typeof message === 'string' ? message : JSON.stringify(message),
  });
}

/** The JSON-RPC messages of an event stream's body: each `data:` line, parsed. */
export function messagesOf(eventStream: string): Record<string, unknown>[] {
  return eventStream
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice('data: '.length)) as Record<string, unknown>);
}

/** Initializes a session with a raw request and returns its id (the client then walks away). */
export async function openSession(url: string): Promise<string> {
  const response = await post(url, INITIALIZE);
  await response.text();
  const id = response.headers.get('mcp-session-id');
  if (response.status !== 200 || id === null) throw new Error(`initialize failed: ${response.status}`);
  return id;
}

/** A request inside a session: `tools/list` by default. */
export function inSession(
  url: string,
  id: string,
  method = 'tools/list',
  params?: object,
): Promise<Response> {
  return post(
    url,
    { jsonrpc: '2.0', id: 2, method, ...(params === undefined ? {} : { params }) },
    {
      'mcp-session-id': id,
    },
  );
}
