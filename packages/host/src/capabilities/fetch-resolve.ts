/**
 * Resolving the host of a `ctx.fetch` URL, once per hop. The addresses found here are checked
 * (`fetch-target.ts`) and handed to the transport, which connects to them and to nothing else:
 * the HTTP client never resolves the name a second time, so an answer that changes between the
 * check and the connection (DNS rebinding) has nothing to change.
 */
import { promises as dnsPromises } from 'node:dns';
import { type IpAddress, parseIp } from './fetch-address.js';

/** Resolves a host name to all its addresses, as `dns.lookup(name, {all: true})` does. */
export type FetchResolver = (hostname: string) => Promise<readonly { readonly address: string }[]>;

/**
 * The operating system's resolver (`/etc/hosts`, then DNS), the one `net.connect` uses. Read from
 * `dns.promises` at call time, so a process-wide override of it applies here too.
 */
export const systemResolver: FetchResolver = (hostname) => dnsPromises.lookup(hostname, { all: true });

/** How long an answer is reused, and how many names are remembered at most. */
export const ANSWER_TTL_MS = 5_000;
export const MAX_ANSWERS = 256;

/**
 * `resolve` with each answer reused for {@link ANSWER_TTL_MS}, and concurrent questions about one
 * name asked once. The Node HTTP client this replaced resolved only when it opened a connection,
 * and kept connections alive for seconds; asking the resolver on every call instead would add a
 * DNS round trip to each one where the system does not cache. Reusing an answer is safe: it is
 * checked again on every call, and the connection still goes to a checked address only. Failures
 * are not reused.
 */
export function cachingResolver(
  resolve: FetchResolver,
  now: () => number = performance.now.bind(performance),
) {
  const answers = new Map<string, { readonly expires: number; readonly answer: ReturnType<FetchResolver> }>();
  return (hostname: string): ReturnType<FetchResolver> => {
    const time = now();
    const known = answers.get(hostname);
    if (known !== undefined && known.expires > time) return known.answer;
    answers.delete(hostname);
    // Oldest first: Map keeps insertion order.
    if (answers.size >= MAX_ANSWERS) answers.delete(answers.keys().next().value as string);
    const answer = resolve(hostname);
    answers.set(hostname, { expires: time + ANSWER_TTL_MS, answer });
    answer.catch(() => {
      if (answers.get(hostname)?.answer === answer) answers.delete(hostname);
    });
    return answer;
  };
}

/**
 * The addresses `url` names: its IP literal as the URL parser normalized it (`0x7f.1`,
 * `2130706433` and `127.1` are all `127.0.0.1` by now), or what `resolve` returns for its name.
 * Entries that are not IP addresses are dropped (the list may end up empty). The wait ends when
 * `signal` aborts, even if the resolver does not.
 */
export async function hostAddresses(
  url: URL,
  resolve: FetchResolver,
  signal: AbortSignal,
): Promise<IpAddress[]> {
  const literal = parseIp(url.hostname);
  if (literal !== undefined) return [literal];
  const answer = await untilAborted(resolve(url.hostname), signal);
  const addresses: IpAddress[] = [];
  for (const entry of Array.isArray(answer) ? answer : []) {
    const ip = typeof entry?.address === 'string' ? parseIp(entry.address) : undefined;
    if (ip !== undefined) addresses.push(ip);
  }
  return addresses;
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
