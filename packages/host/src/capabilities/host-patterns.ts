/**
 * Host patterns of `permissions.net` and `grants.net`: `api.example.com`, `*.example.com`, each
 * with an optional `:port`.
 *
 * Matching is strict on purpose:
 * - hosts compare exactly after canonicalization (lower case, IP literals as the URL parser
 *   writes them, so `127.1` and `127.0.0.1` are one host);
 * - `*.example.com` matches any subdomain, at any depth, but never `example.com` itself; the part
 *   after `*.` must be a domain name of at least two labels (no `*`, `*.com` or `*.10.0.0.1`);
 * - without a port a pattern matches only the scheme's default port (80 for http:, 443 for
 *   https:); `:8080` matches only port 8080, whatever the scheme.
 */

/** A parsed, canonical host pattern. */
export interface HostPattern {
  /** Canonical text, as shown in messages and in effective permissions. */
  readonly text: string;
  /** The host, or for a wildcard the domain after `*.`. */
  readonly host: string;
  readonly wildcard: boolean;
  /** The exact port, or undefined for the scheme's default port only. */
  readonly port: number | undefined;
}

const LABEL = '[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?';
const PATTERN = new RegExp(`^(\\*\\.)?((?:${LABEL})(?:\\.${LABEL})*|\\[[0-9a-f:.]+\\])(?::(\\d{1,5}))?$`);
const MAX_PATTERN_LENGTH = 300;

/** Parses a declared or granted pattern; undefined when it is not a valid one. */
export function parseHostPattern(value: unknown): HostPattern | undefined {
  if (typeof value !== 'string' || value.length > MAX_PATTERN_LENGTH) return undefined;
  const match = PATTERN.exec(value.toLowerCase());
  if (match === null) return undefined;
  const [, star, rawHost = '', rawPort] = match;
  const wildcard = star !== undefined;
  const port = rawPort === undefined ? undefined : Number(rawPort);
  if (port !== undefined && (port < 1 || port > 65535)) return undefined;
  const host = canonicalHost(rawHost);
  if (host === undefined) return undefined;
  if (wildcard && (isIpLiteral(host) || !host.includes('.'))) return undefined;
  const text = `${wildcard ? '*.' : ''}${host}${port === undefined ? '' : `:${port}`}`;
  return { text, host, wildcard, port };
}

/** The host as the WHATWG URL parser writes it, so patterns compare like `URL.hostname`. */
function canonicalHost(host: string): string | undefined {
  try {
    const url = new URL(`http://${host}/`);
    return url.hostname === '' ? undefined : url.hostname;
  } catch {
    return undefined;
  }
}

/** IPv6 in brackets, or a dotted IPv4 (the URL parser has already turned other forms into it). */
function isIpLiteral(host: string): boolean {
  return host.startsWith('[') || /^\d+\.\d+\.\d+\.\d+$/.test(host);
}

const DEFAULT_PORTS: Readonly<Record<string, number>> = { 'http:': 80, 'https:': 443 };

/** Whether `url` (an http: or https: URL) is a host and port `pattern` allows. */
export function patternMatchesUrl(pattern: HostPattern, url: URL): boolean {
  return hostMatchesUrl(pattern, url) && portMatches(pattern, url);
}

/** Whether `url`'s host name is one `pattern` names, whatever the port. */
export function hostMatchesUrl(pattern: HostPattern, url: URL): boolean {
  const hostname = url.hostname;
  return pattern.wildcard
    ? hostname.endsWith(`.${pattern.host}`) && hostname.length > pattern.host.length + 1
    : hostname === pattern.host;
}

/** The port `url` connects to: its own, or its scheme's default. */
export function urlPort(url: URL): number | undefined {
  return url.port === '' ? DEFAULT_PORTS[url.protocol] : Number(url.port);
}

/** Whether `url`'s port is one `pattern` allows: its exact port, or without one the scheme's default. */
export function portMatches(pattern: HostPattern, url: URL): boolean {
  // `URL.port` is '' exactly when the URL uses its scheme's default port.
  if (pattern.port === undefined) return url.port === '';
  const port = url.port === '' ? DEFAULT_PORTS[url.protocol] : Number(url.port);
  return port === pattern.port;
}

/**
 * Whether a grant allows everything a declared pattern asks for: the same host, or hosts under a
 * granted wildcard; and the same port rule. A declared wildcard needs a wildcard grant.
 */
export function patternCovers(grant: HostPattern, declared: HostPattern): boolean {
  if (grant.port !== declared.port) return false;
  if (!grant.wildcard) return !declared.wildcard && declared.host === grant.host;
  if (declared.wildcard && declared.host === grant.host) return true;
  return declared.host.endsWith(`.${grant.host}`);
}
