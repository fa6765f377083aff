import { describe, expect, it } from 'vitest';
import { parseIp } from '../../src/capabilities/fetch-address.js';
import { GateRules } from '../../src/capabilities/net-gate.js';

const ip = (text: string) => {
  const parsed = parseIp(text);
  if (parsed === undefined) throw new Error(text);
  return parsed;
};

describe("the network gate's rules (a process tool's net grant)", () => {
  it('matches hosts as plugins grants do: a pattern without a port means 80 and 443 only', () => {
    const rules = new GateRules(['api.example.com', '*.cdn.example.com', 'git.example.com:22']);
    expect(rules.byName('api.example.com', 443)).toBeUndefined();
    expect(rules.byName('api.example.com', 80)).toBeUndefined();
    expect(rules.byName('a.b.cdn.example.com', 443)).toBeUndefined();
    expect(rules.byName('git.example.com', 22)).toBeUndefined();
    expect(rules.byName('api.example.com', 8443)).toEqual({
      host: 'api.example.com',
      port: 8443,
      why: 'no net grant names it',
      grant: 'api.example.com:8443',
    });
    expect(rules.byName('cdn.example.com', 443)?.grant).toBe('cdn.example.com');
    expect(rules.byName('evil.com', 443)?.grant).toBe('evil.com');
  });

  it('connects to a loopback or private address only when a grant names it by IP (or loopback as localhost)', () => {
    expect(new GateRules(['127.0.0.1:8080']).byName('127.0.0.1', 8080)).toBeUndefined();
    expect(new GateRules([]).byName('127.0.0.1', 8080)?.grant).toBe('127.0.0.1:8080');
    // A granted name that resolves to a private address: refused, naming the address to grant.
    const rules = new GateRules(['internal.example.com:8080']);
    const url = new URL('http://internal.example.com:8080/');
    const refused = rules.byAddress(url, [ip('10.0.0.5')]);
    expect(refused.allowed).toEqual([]);
    expect(refused.refusal).toEqual({
      host: 'internal.example.com',
      port: 8080,
      why: 'it resolved to 10.0.0.5, a private-network address (10.0.0.0/8), reached only when a grant names the address',
      grant: '10.0.0.5:8080',
    });
    const granted = new GateRules(['internal.example.com:8080', '10.0.0.5:8080']);
    expect(granted.byAddress(url, [ip('10.0.0.5')]).allowed).toEqual([ip('10.0.0.5')]);
    // localhost opens every loopback address, on its port.
    const local = new GateRules(['localhost:3000']);
    expect(
      local.byAddress(new URL('http://localhost:3000/'), [ip('127.0.0.1'), ip('::1')]).allowed,
    ).toHaveLength(2);
    // Public and special answers mixed: only the public ones are kept.
    const mixed = new GateRules(['example.com']);
    expect(
      mixed.byAddress(new URL('https://example.com/'), [ip('127.0.0.1'), ip('93.184.215.14')]).allowed,
    ).toEqual([ip('93.184.215.14')]);
  });
});
