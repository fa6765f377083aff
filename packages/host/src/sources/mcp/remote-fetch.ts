import {
  cachingResolver,
  GateRules,
  hostAddresses,
  nodeTransport,
  systemResolver,
} from '../../capabilities/index.js';

/** A refused remote server's host: the message says the address, why, and the key that allows it. */
export class RemoteHostRefused extends Error {
  override readonly name = 'RemoteHostRefused';
  readonly code = 'remote-host-refused';
}

/**
 * The `fetch` a remote (URL) MCP server's transport uses: every request's host is resolved and
 * each address passes `ctx.fetch`'s rule (fetch-target.ts) — a loopback, private or other
 * special-purpose address only when `mcpServers.<id>.net` names it (`"127.0.0.1:8080"`, or
 * `"localhost:8080"` for loopback) — and the connection goes to exactly a checked address, so an
 * answer that changes between the check and the connection (DNS rebinding) changes nothing. Its
 * own connection pool: a socket opened for this server is never lent to another.
 */
export function checkedFetch(name: string, net: readonly string[]): typeof fetch {
  const rules = new GateRules(net);
  const resolve = cachingResolver(systemResolver);
  const transport = nodeTransport();
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const signal = init?.signal ?? new AbortController().signal;
    const addresses = await hostAddresses(url, resolve, signal);
    const { allowed, refusal } = rules.byAddress(url, addresses);
    if (refusal !== undefined || allowed.length === 0) {
      throw new RemoteHostRefused(
        refusal === undefined
          ? `its URL's host ${url.hostname} has no address`
          : `its URL's host ${url.host} is not allowed: ${refusal.why}; a remote server connects to loopback and private addresses only when mcpServers.${name}.net names the address: add ${JSON.stringify(refusal.grant)} to mcpServers.${name}.net to allow it`,
      );
    }
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, key) => {
      headers[key] = value;
    });
    const body =
      init?.body === undefined || init.body === null
        ? undefined
        : typeof init.body === 'string'
          ? init.body
          : await new Response(init.body).text();
    let response: Awaited<ReturnType<typeof transport>>;
    try {
      response = await transport({
        url,
        addresses: allowed,
        method: init?.method ?? 'GET',
        headers,
        body,
        signal,
      });
    } catch (error) {
      // As the platform's fetch fails, so the bridge tells a server it cannot reach (isUnreachable).
      if (signal.aborted) throw error;
      throw new TypeError('fetch failed', { cause: error });
    }
    // The request's signal destroys the body with an AbortError when the client closes (the SDK
    // aborts its open streams); whoever reads the body sees it, but a body nobody reads any more
    // would throw it out of the host process: it is heard here.
    (response.body as Partial<NodeJS.EventEmitter>).on?.('error', () => {});
    const nullBody = response.status === 204 || response.status === 304 || init?.method === 'HEAD';
    return new Response(nullBody ? null : ReadableStream.from(response.body), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  }) as typeof fetch;
}
