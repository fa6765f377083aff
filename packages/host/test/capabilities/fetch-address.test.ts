import { BlockList } from 'node:net';
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type AddressKind,
  describeSpecial,
  formatIp,
  grantLiteral,
  type IpAddress,
  parseIp,
  sameIp,
  specialAddress,
} from '../../src/capabilities/fetch-address.js';

const ip = (text: string): IpAddress => {
  const parsed = parseIp(text);
  if (parsed === undefined) throw new Error(`${text} does not parse`);
  return parsed;
};
const kindOf = (text: string) => specialAddress(ip(text))?.kind ?? 'public';

describe('special-purpose addresses, each family', () => {
  const cases: Record<AddressKind | 'public', readonly string[]> = {
    loopback: ['127.0.0.1', '127.0.0.0', '127.255.255.254', '::1'],
    'link-local': ['169.254.169.254', '169.254.0.1', 'fe80::1', 'febf:ffff::1'],
    private: ['10.0.0.1', '10.255.255.255', '172.16.0.1', '172.31.255.255', '192.168.1.1'],
    'unique-local': ['fc00::1', 'fd12:3456::1'],
    unspecified: ['0.0.0.0', '::'],
    'this-network': ['0.1.2.3', '0.255.255.255'],
    shared: ['100.64.0.1', '100.127.255.255'],
    multicast: ['224.0.0.1', '239.255.255.250', 'ff02::1', 'ff0e::1'],
    broadcast: ['255.255.255.255'],
    reserved: [
      '240.0.0.1',
      '192.0.0.170',
      '192.88.99.1',
      '2001::1', // Teredo
      '2001:1ff::1',
      'fec0::1', // site-local, deprecated
      '100::1', // discard-only
      '::7f00:1', // IPv4-compatible, deprecated
      '4000::1', // unassigned, outside 2000::/3
    ],
    documentation: ['192.0.2.1', '198.51.100.7', '203.0.113.255', '2001:db8::1', '3fff::1'],
    benchmarking: ['198.18.0.1', '198.19.255.255', '2001:2::1'],
    public: [
      '8.8.8.8',
      '1.1.1.1',
      '93.184.215.14',
      '172.15.255.255',
      '172.32.0.0',
      '100.63.255.255',
      '100.128.0.0',
      '169.253.255.255',
      '223.255.255.255',
      '2606:4700::1111',
      '2a00:1450:4001::200e',
      '2001:200::1',
    ],
  };
  for (const [kind, addresses] of Object.entries(cases)) {
    it(`${kind}: ${addresses.join(', ')}`, () => {
      for (const address of addresses) expect(kindOf(address), address).toBe(kind);
    });
  }

  it('an IPv6 address that carries an IPv4 address is judged by that address', () => {
    expect(specialAddress(ip('::ffff:127.0.0.1'))).toEqual({
      kind: 'loopback',
      block: '127.0.0.0/8',
      via: { form: 'an IPv4-mapped address', ipv4: ip('127.0.0.1') },
    });
    expect(kindOf('::ffff:7f00:1')).toBe('loopback');
    expect(kindOf('::ffff:a9fe:a9fe')).toBe('link-local');
    expect(kindOf('::ffff:10.1.2.3')).toBe('private');
    expect(kindOf('64:ff9b::169.254.169.254')).toBe('link-local'); // NAT64
    expect(kindOf('2002:7f00:1::1')).toBe('loopback'); // 6to4
    expect(kindOf('2002:c0a8:101::1')).toBe('private');
    expect(kindOf('::ffff:8.8.8.8')).toBe('public');
    expect(kindOf('64:ff9b::808:808')).toBe('public');
    expect(kindOf('2002:808:808::1')).toBe('public');
  });

  it('denials describe the address, its form and its block', () => {
    const describe = (text: string) => {
      const parsed = ip(text);
      return describeSpecial(
        parsed,
        specialAddress(parsed) as NonNullable<ReturnType<typeof specialAddress>>,
      );
    };
    expect(describe('127.0.0.1')).toBe('127.0.0.1, a loopback address (127.0.0.0/8)');
    expect(describe('169.254.169.254')).toBe('169.254.169.254, a link-local address (169.254.0.0/16)');
    expect(describe('fd00::1')).toBe('fd00::1, a unique local (private) address (fc00::/7)');
    expect(describe('::ffff:127.0.0.1')).toBe(
      '::ffff:7f00:1, an IPv4-mapped address of 127.0.0.1, a loopback address (127.0.0.0/8)',
    );
    expect(describe('4000::1')).toBe('4000::1, a reserved address (outside 2000::/3)');
  });
});

/** A net.BlockList of CIDR blocks of one family. */
function blockList(family: 'ipv4' | 'ipv6', blocks: readonly string[]): BlockList {
  const list = new BlockList();
  for (const cidr of blocks) {
    const [address = '', bits = ''] = cidr.split('/');
    list.addSubnet(address, Number(bits), family);
  }
  return list;
}

/**
 * The special blocks as the IANA registries list them, checked by Node's own matcher; one list
 * per family, since a BlockList also matches IPv4 addresses against IPv6 rules (as ::ffff:a.b.c.d).
 */
const REFERENCE = {
  ipv4: blockList('ipv4', [
    '0.0.0.0/8',
    '10.0.0.0/8',
    '100.64.0.0/10',
    '127.0.0.0/8',
    '169.254.0.0/16',
    '172.16.0.0/12',
    '192.0.0.0/24',
    '192.0.2.0/24',
    '192.88.99.0/24',
    '192.168.0.0/16',
    '198.18.0.0/15',
    '198.51.100.0/24',
    '203.0.113.0/24',
    '224.0.0.0/4',
    '240.0.0.0/4',
  ]),
  // Everything outside global unicast 2000::/3, and the special blocks inside it.
  ipv6: blockList('ipv6', ['::/3', '4000::/2', '8000::/1', '2001::/23', '2001:db8::/32', '3fff::/20']),
};

describe('classification agrees with net.BlockList on the registry blocks', () => {
  const octet = fc.integer({ min: 0, max: 255 });
  // First octets at and around every block boundary, so the masks are exercised where they bite.
  const edgyFirst = fc.oneof(
    octet,
    fc.constantFrom(0, 9, 10, 11, 99, 100, 101, 126, 127, 128, 168, 169, 170),
  );
  const v4 = fc.tuple(edgyFirst, octet, octet, octet).map((parts) => parts.join('.'));

  it('IPv4', () => {
    fc.assert(
      fc.property(v4, (address) => {
        expect(specialAddress(ip(address)) !== undefined).toBe(REFERENCE.ipv4.check(address, 'ipv4'));
      }),
      { numRuns: 1000 },
    );
  });

  it('IPv6 (outside the blocks that carry IPv4)', () => {
    const carriers = blockList('ipv6', ['::ffff:0:0/96', '64:ff9b::/96', '2002::/16']);
    const piece = fc.integer({ min: 0, max: 0xffff });
    const firstPiece = fc.oneof(piece, fc.constantFrom(0, 1, 0x1fff, 0x2000, 0x2001, 0x2002, 0x3fff, 0x4000));
    const v6 = fc
      .tuple(firstPiece, fc.array(piece, { minLength: 7, maxLength: 7 }))
      .map(([first, rest]) => [first, ...rest].map((p) => p.toString(16)).join(':'));
    fc.assert(
      fc.property(v6, (address) => {
        fc.pre(!carriers.check(address, 'ipv6'));
        expect(specialAddress(ip(address)) !== undefined).toBe(REFERENCE.ipv6.check(address, 'ipv6'));
      }),
      { numRuns: 1000 },
    );
  });

  it('an IPv4-mapped address is exactly as special as its IPv4 address', () => {
    fc.assert(
      fc.property(v4, (address) => {
        expect(specialAddress(ip(`::ffff:${address}`))?.kind).toBe(specialAddress(ip(address))?.kind);
      }),
    );
  });
});

describe('parsing and writing addresses', () => {
  it('takes dotted quads and IPv6 (with or without brackets, zone or IPv4 tail)', () => {
    expect(formatIp(ip('192.168.0.1'))).toBe('192.168.0.1');
    expect(formatIp(ip('[::1]'))).toBe('::1');
    expect(formatIp(ip('FE80::1%eth0'))).toBe('fe80::1');
    expect(formatIp(ip('::ffff:127.0.0.1'))).toBe('::ffff:7f00:1');
    expect(formatIp(ip('1:0:0:2:0:0:0:3'))).toBe('1:0:0:2::3');
    expect(formatIp(ip('1:0:2:3:4:5:6:7'))).toBe('1:0:2:3:4:5:6:7');
  });

  it('refuses anything else, short and odd IPv4 forms included', () => {
    for (const text of [
      '127.1',
      '0x7f.0.0.1',
      '2130706433',
      '0177.0.0.1',
      '01.2.3.4',
      '256.0.0.1',
      '1.2.3.4.5',
      '1:2:3:4:5:6:7:8:9',
      '1::2::3',
      ':::1',
      '12345::',
      '::1.2.3',
      'example.com',
      '',
      '[127.0.0.1]',
    ]) {
      expect(parseIp(text), text).toBeUndefined();
    }
  });

  it('writes IPv6 as the URL parser does', () => {
    fc.assert(
      fc.property(fc.ipV6(), (address) => {
        expect(formatIp(ip(address))).toBe(new URL(`http://[${address}]/`).hostname.slice(1, -1));
      }),
      { numRuns: 1000 },
    );
  });

  it('compares an IPv4-mapped address equal to its IPv4 address, and grants name it that way', () => {
    expect(sameIp(ip('::ffff:7f00:1'), ip('127.0.0.1'))).toBe(true);
    expect(sameIp(ip('127.0.0.1'), ip('::ffff:127.0.0.1'))).toBe(true);
    expect(sameIp(ip('::1'), ip('0:0:0:0:0:0:0:1'))).toBe(true);
    expect(sameIp(ip('127.0.0.1'), ip('127.0.0.2'))).toBe(false);
    expect(sameIp(ip('::7f00:1'), ip('127.0.0.1'))).toBe(false);
    expect(grantLiteral(ip('::ffff:127.0.0.1'))).toBe('127.0.0.1');
    expect(grantLiteral(ip('::1'))).toBe('[::1]');
  });
});
