/**
 * Where `ctx.fetch` may go. Every URL, the first and each redirect hop's, passes the same three
 * checks: an http: or https: scheme, no credentials in the URL, and a host and port that an
 * effective `permissions.net` pattern matches.
 *
 * Then every address the host resolves to passes a fourth: a public address, or one that config
 * names. A granted *name* says which URLs a plugin may ask for, not where the connection may go:
 * whoever controls that name's DNS would otherwise choose (127.0.0.1, 169.254.169.254, the LAN).
 * A loopback, private, link-local or other special-purpose address is connected to only when
 * `plugins.<id>.grants.net` names it, as an IP literal (`"10.0.0.5:8080"`) or, for loopback
 * addresses, as `localhost`, with a port rule that matches the URL. The check reads the
 * operator's grants, not what the plugin declares: which private addresses exist here is the
 * operator's knowledge, and a plugin that may fetch `api.example.com` should not need to declare
 * the address a split-horizon DNS gives that name.
 */
import { NET, notDeclared, notGranted, otherPort } from './denials.js';
import { denied } from './errors.js';
import {
  describeSpecial,
  grantLiteral,
  type IpAddress,
  parseIp,
  type SpecialAddress,
  sameIp,
  specialAddress,
} from './fetch-address.js';
import { type HostPattern, hostMatchesUrl, patternMatchesUrl, portMatches } from './host-patterns.js';

export interface FetchTargets {
  readonly pluginId: string;
  /** Effective patterns: declared and granted. */
  readonly effective: readonly HostPattern[];
  /** Valid declared patterns, to tell "not declared" from "declared but not granted". */
  readonly declared: readonly HostPattern[];
  /** Valid granted patterns: those naming an IP address or `localhost` open that address. */
  readonly granted: readonly HostPattern[];
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
  const request = { capability: 'fetch', subject, pluginId: targets.pluginId };
  if (declared !== undefined) throw notGranted(request, NET, declared.text);
  // The host is there, the port is not: say exactly that, not "must declare".
  const samehost = targets.declared.find((pattern) => hostMatchesUrl(pattern, url));
  if (samehost !== undefined) throw otherPort(request, samehost.text, url);
  throw notDeclared(request, NET, url.host);
}

/** A grant that opens special addresses: one IP address, or every loopback one (`localhost`). */
export interface AddressGrant {
  readonly address: IpAddress | 'loopback';
  readonly pattern: HostPattern;
}

/** The grants among `granted` that name an address; computed once per plugin. */
export function addressGrants(granted: readonly HostPattern[]): AddressGrant[] {
  const grants: AddressGrant[] = [];
  for (const pattern of granted) {
    if (pattern.wildcard) continue;
    const address = pattern.host === 'localhost' ? 'loopback' : parseIp(pattern.host);
    if (address !== undefined) grants.push({ address, pattern });
  }
  return grants;
}

function opens(grant: AddressGrant, ip: IpAddress, special: SpecialAddress, url: URL): boolean {
  if (!portMatches(grant.pattern, url)) return false;
  return grant.address === 'loopback' ? special.kind === 'loopback' : sameIp(grant.address, ip);
}

function connectable(grants: readonly AddressGrant[], ip: IpAddress, url: URL): boolean {
  const special = specialAddress(ip);
  return special === undefined || grants.some((grant) => opens(grant, ip, special, url));
}

/** Refused addresses listed in a denial; the rest are counted. */
const MAX_LISTED = 3;

/**
 * The addresses of `url`'s host that may be connected to, in the resolver's order: the public
 * ones and the special ones a grant opens. When none may, throws a denial naming the host, each
 * refused address and why, and the grant that would open the first one.
 *
 * A host with several addresses keeps only its allowed ones, and the connection goes to those
 * alone: refusing the whole host because one record is private would break names that publish a
 * stray private or transition address, and gain nothing, since no connection can reach it.
 */
export function connectableAddresses(
  targets: FetchTargets,
  grants: readonly AddressGrant[],
  url: URL,
  addresses: readonly IpAddress[],
  from: URL | undefined,
): readonly IpAddress[] {
  // The common case, every address allowed, hands the list on as it is.
  if (addresses.every((ip) => connectable(grants, ip, url))) return addresses;
  const allowed = addresses.filter((ip) => connectable(grants, ip, url));
  if (allowed.length > 0) return allowed;

  const refused = addresses.map((ip) => [ip, specialAddress(ip) as SpecialAddress] as const);
  const listed = refused.slice(0, MAX_LISTED).map(([ip, special]) => describeSpecial(ip, special));
  const more = refused.length - listed.length;
  const where =
    parseIp(url.hostname) === undefined
      ? `${JSON.stringify(url.hostname)} resolved to ${listed.join('; ')}${more > 0 ? `; and ${more} more` : ''}`
      : `the address is ${listed[0]}`;
  const grant = `${grantLiteral(addresses[0] as IpAddress)}${url.port === '' ? '' : `:${url.port}`}`;
  throw denied(
    'fetch',
    `${fetchSubject(url, from)} is not allowed: ${where}. ctx.fetch connects to loopback, private ` +
      'and other special-purpose addresses only when config names the address; add ' +
      `${JSON.stringify(grant)} to plugins.${targets.pluginId}.grants.net to allow it`,
  );
}
