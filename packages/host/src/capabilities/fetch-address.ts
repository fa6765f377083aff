/**
 * IP addresses as `ctx.fetch` sees them: a strict parser, the special-purpose ranges a plugin may
 * not connect to unless config names the address, and the text messages show.
 *
 * The ranges follow the IANA special-purpose address registries. IPv6 is allow-listed: only
 * global unicast (2000::/3) outside its special blocks is public; everything else (unique local,
 * link-local, multicast, the old site-local and IPv4-compatible forms, unassigned space) is
 * refused. An address that carries an IPv4 address (IPv4-mapped ::ffff:0:0/96, NAT64 64:ff9b::/96,
 * 6to4 2002::/16) is judged by that IPv4 address, so `::ffff:127.0.0.1` is loopback.
 */

/** Why an address is not public. */
export type AddressKind =
  | 'benchmarking'
  | 'broadcast'
  | 'documentation'
  | 'link-local'
  | 'loopback'
  | 'multicast'
  | 'private'
  | 'reserved'
  | 'shared'
  | 'this-network'
  | 'unique-local'
  | 'unspecified';

const KIND_LABELS = {
  benchmarking: 'a benchmarking address',
  broadcast: 'the broadcast address',
  documentation: 'a documentation address',
  'link-local': 'a link-local address',
  loopback: 'a loopback address',
  multicast: 'a multicast address',
  private: 'a private-network address',
  reserved: 'a reserved address',
  shared: 'a carrier-grade NAT (shared) address',
  'this-network': 'a "this network" address',
  'unique-local': 'a unique local (private) address',
  unspecified: 'the unspecified address',
} as const satisfies Record<AddressKind, string>;

/** A parsed IP address. */
export type IpAddress =
  | { readonly family: 4; readonly value: number }
  | { readonly family: 6; readonly pieces: readonly number[] };

/** What an address is, when it is not public. */
export interface SpecialAddress {
  readonly kind: AddressKind;
  /** The registry block it falls in, e.g. `127.0.0.0/8`. */
  readonly block: string;
  /** For an IPv6 address that carries an IPv4 one: how (`IPv4-mapped`, `NAT64`, `6to4`) and which. */
  readonly via?: { readonly form: string; readonly ipv4: IpAddress };
}

// ---- parsing ---------------------------------------------------------------------------------

const IPV4 = /^(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})$/;
const PIECE = /^[0-9a-f]{1,4}$/;

/** A dotted-quad IPv4 address (no leading zeros, no short forms), or undefined. */
function parseIpv4(text: string): number | undefined {
  const match = IPV4.exec(text);
  if (match === null) return undefined;
  let value = 0;
  for (let i = 1; i <= 4; i++) {
    const octet = Number(match[i]);
    if (octet > 255) return undefined;
    value = value * 256 + octet;
  }
  return value;
}

function parsePieces(part: string, out: number[], last: boolean): boolean {
  if (part === '') return true;
  const groups = part.split(':');
  for (let i = 0; i < groups.length; i++) {
    const group = groups[i] as string;
    if (last && i === groups.length - 1 && group.includes('.')) {
      const v4 = parseIpv4(group);
      if (v4 === undefined) return false;
      out.push(Math.floor(v4 / 0x10000), v4 % 0x10000);
    } else if (PIECE.test(group)) out.push(Number.parseInt(group, 16));
    else return false;
  }
  return true;
}

function parseIpv6(text: string): number[] | undefined {
  // A zone (`fe80::1%eth0`) does not change which block the address is in.
  const zone = text.indexOf('%');
  const bare = (zone === -1 ? text : text.slice(0, zone)).toLowerCase();
  const halves = bare.split('::');
  if (halves.length > 2) return undefined;
  const head: number[] = [];
  const tail: number[] = [];
  const [first = '', second] = halves;
  if (!parsePieces(first, head, second === undefined)) return undefined;
  if (second !== undefined && !parsePieces(second, tail, true)) return undefined;
  if (second === undefined) return head.length === 8 ? head : undefined;
  if (head.length + tail.length > 7) return undefined;
  return [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
}

/**
 * An address as a resolver returns it (`127.0.0.1`, `::1`, `::ffff:127.0.0.1`) or as the URL
 * parser writes a host (IPv6 in brackets); undefined when it is not an IP address. IPv4 must be
 * a plain dotted quad: the URL parser has already turned `0x7f.1`, `2130706433` or `127.1` into
 * one, and a resolver never returns another form.
 */
export function parseIp(text: string): IpAddress | undefined {
  if (text.length > 64) return undefined;
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  else {
    const value = parseIpv4(text);
    if (value !== undefined) return { family: 4, value };
  }
  if (!text.includes(':')) return undefined;
  const pieces = parseIpv6(text);
  return pieces === undefined ? undefined : { family: 6, pieces };
}

// ---- formatting ------------------------------------------------------------------------------

function formatIpv4(value: number): string {
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');
}

/** IPv6 as the WHATWG URL parser writes it: lower case, the first longest run of 2+ zeros as `::`. */
function formatIpv6(pieces: readonly number[]): string {
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && pieces[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j === i ? i + 1 : j;
  }
  if (bestStart === -1) return pieces.map((p) => p.toString(16)).join(':');
  const hex = (list: readonly number[]) => list.map((p) => p.toString(16)).join(':');
  return `${hex(pieces.slice(0, bestStart))}::${hex(pieces.slice(bestStart + bestLength))}`;
}

/** The address as messages and grants write it (IPv6 without brackets). */
export function formatIp(ip: IpAddress): string {
  return ip.family === 4 ? formatIpv4(ip.value) : formatIpv6(ip.pieces);
}

/** Whether two addresses are the same; an IPv4-mapped IPv6 address is its IPv4 address. */
export function sameIp(a: IpAddress, b: IpAddress): boolean {
  const x = unmapped(a);
  const y = unmapped(b);
  if (x.family === 4) return y.family === 4 && x.value === y.value;
  if (y.family === 4) return false;
  for (let i = 0; i < 8; i++) if (x.pieces[i] !== y.pieces[i]) return false;
  return true;
}

/** How a grant names `ip`: `127.0.0.1`, `[::1]`; an IPv4-mapped address by its IPv4 address. */
export function grantLiteral(ip: IpAddress): string {
  const plain = unmapped(ip);
  return plain.family === 4 ? formatIpv4(plain.value) : `[${formatIpv6(plain.pieces)}]`;
}

/** `::ffff:a.b.c.d` as `a.b.c.d`; any other address unchanged. */
function unmapped(ip: IpAddress): IpAddress {
  if (ip.family === 6 && inBlock6(ip.pieces, MAPPED)) return embeddedIpv4(ip.pieces, 6);
  return ip;
}

// ---- special-purpose blocks ------------------------------------------------------------------

interface Block4 {
  readonly base: number;
  readonly bits: number;
  readonly kind: AddressKind;
}

const block4 = (base: string, bits: number, kind: AddressKind): Block4 => ({
  base: parseIpv4(base) as number,
  bits,
  kind,
});

/** Most specific first: the first block that contains an address names it. */
const BLOCKS4: readonly Block4[] = [
  block4('0.0.0.0', 32, 'unspecified'),
  block4('255.255.255.255', 32, 'broadcast'),
  block4('0.0.0.0', 8, 'this-network'),
  block4('10.0.0.0', 8, 'private'),
  block4('100.64.0.0', 10, 'shared'),
  block4('127.0.0.0', 8, 'loopback'),
  block4('169.254.0.0', 16, 'link-local'),
  block4('172.16.0.0', 12, 'private'),
  block4('192.0.0.0', 24, 'reserved'),
  block4('192.0.2.0', 24, 'documentation'),
  block4('192.88.99.0', 24, 'reserved'),
  block4('192.168.0.0', 16, 'private'),
  block4('198.18.0.0', 15, 'benchmarking'),
  block4('198.51.100.0', 24, 'documentation'),
  block4('203.0.113.0', 24, 'documentation'),
  block4('224.0.0.0', 4, 'multicast'),
  block4('240.0.0.0', 4, 'reserved'),
];

function inBlock4(value: number, block: Block4): boolean {
  const size = 2 ** (32 - block.bits);
  return value >= block.base && value < block.base + size;
}

interface Block6 {
  readonly pieces: readonly number[];
  readonly bits: number;
  readonly text: string;
}

function block6(text: string): Block6 {
  const [address = '', bits = ''] = text.split('/');
  return { pieces: parseIpv6(address) as number[], bits: Number(bits), text };
}

function inBlock6(pieces: readonly number[], block: Block6): boolean {
  for (let bit = 0, i = 0; bit < block.bits; bit += 16, i++) {
    const width = Math.min(16, block.bits - bit);
    const mask = (0xffff << (16 - width)) & 0xffff;
    if (((pieces[i] as number) & mask) !== ((block.pieces[i] as number) & mask)) return false;
  }
  return true;
}

const MAPPED = block6('::ffff:0:0/96');
/** Blocks that carry an IPv4 address: the form's name and the piece where the IPv4 starts. */
const CARRIERS: readonly (readonly [Block6, string, number])[] = [
  [MAPPED, 'an IPv4-mapped address', 6],
  [block6('64:ff9b::/96'), 'a NAT64 address', 6],
  [block6('2002::/16'), 'a 6to4 address', 1],
];
/** Most specific first, checked before the catch-all "outside 2000::/3". */
const BLOCKS6: readonly (readonly [Block6, AddressKind])[] = [
  [block6('::/128'), 'unspecified'],
  [block6('::1/128'), 'loopback'],
  [block6('2001:db8::/32'), 'documentation'],
  [block6('3fff::/20'), 'documentation'],
  [block6('2001:2::/48'), 'benchmarking'],
  [block6('2001::/23'), 'reserved'],
  [block6('fc00::/7'), 'unique-local'],
  [block6('fe80::/10'), 'link-local'],
  [block6('fec0::/10'), 'reserved'],
  [block6('ff00::/8'), 'multicast'],
];
const GLOBAL_UNICAST = block6('2000::/3');

function embeddedIpv4(pieces: readonly number[], at: number): { readonly family: 4; readonly value: number } {
  return { family: 4, value: (pieces[at] as number) * 0x10000 + (pieces[at + 1] as number) };
}

function special4(value: number): SpecialAddress | undefined {
  for (const block of BLOCKS4) {
    if (inBlock4(value, block)) return { kind: block.kind, block: `${formatIpv4(block.base)}/${block.bits}` };
  }
  return undefined;
}

/** What `ip` is when it is not a public address; undefined for a public one. */
export function specialAddress(ip: IpAddress): SpecialAddress | undefined {
  if (ip.family === 4) return special4(ip.value);
  for (const [block, form, at] of CARRIERS) {
    if (!inBlock6(ip.pieces, block)) continue;
    const ipv4 = embeddedIpv4(ip.pieces, at);
    const inner = special4(ipv4.value);
    return inner === undefined ? undefined : { ...inner, via: { form, ipv4 } };
  }
  for (const [block, kind] of BLOCKS6) if (inBlock6(ip.pieces, block)) return { kind, block: block.text };
  if (!inBlock6(ip.pieces, GLOBAL_UNICAST)) return { kind: 'reserved', block: 'outside 2000::/3' };
  return undefined;
}

/** `127.0.0.1, a loopback address (127.0.0.0/8)`, for denials. */
export function describeSpecial(ip: IpAddress, special: SpecialAddress): string {
  const what = `${KIND_LABELS[special.kind]} (${special.block})`;
  if (special.via === undefined) return `${formatIp(ip)}, ${what}`;
  return `${formatIp(ip)}, ${special.via.form} of ${formatIp(special.via.ipv4)}, ${what}`;
}
