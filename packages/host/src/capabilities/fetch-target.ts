/**
 * Where `ctx.fetch` may go. Every URL, the first and each redirect hop's, passes the same three
 * checks: an http: or https: scheme, no credentials in the URL, and a host and port that an
 * effective `permissions.net` pattern matches.
 */
import { NET, notDeclared, notGranted } from './denials.js';
import { denied } from './errors.js';
import { type HostPattern, patternMatchesUrl } from './host-patterns.js';

export interface FetchTargets {
  readonly pluginId: string;
  /** Effective patterns: declared and granted. */
  readonly effective: readonly HostPattern[];
  /** Valid declared patterns, to tell "not declared" from "declared but not granted". */
  readonly declared: readonly HostPattern[];
}

/** `ctx.fetch to "host:port"`, and the hop it was redirected from. */
export function fetchSubject(url: URL, from: URL | undefined): string {
  const to = isHttp(url) ? JSON.stringify(url.host) : `a ${url.protocol} URL`;
  return `ctx.fetch to ${to}${from === undefined ? '' : ` (redirected from ${JSON.stringify(from.host)})`}`;
}

const isHttp = (url: URL) => url.protocol === 'http:' || url.protocol === 'https:';

/** Throws a denial unless `url` may be fetched; `from` is the hop that redirected to it. */
export function checkTarget(targets: FetchTargets, url: URL, from?: URL): void {
  const subject = fetchSubject(url, from);
  if (!isHttp(url)) {
    throw denied('fetch', `${subject} is not allowed: only http: and https: URLs can be fetched`);
  }
  if (url.username !== '' || url.password !== '') {
    throw denied(
      'fetch',
      `${subject} is not allowed: credentials in the URL are refused; send them in a header instead`,
    );
  }
  if (targets.effective.some((pattern) => patternMatchesUrl(pattern, url))) return;
  const declared = targets.declared.find((pattern) => patternMatchesUrl(pattern, url));
  if (declared !== undefined) throw notGranted('fetch', subject, targets.pluginId, NET, declared.text);
  throw notDeclared('fetch', subject, targets.pluginId, NET, url.host);
}
