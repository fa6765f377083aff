import { describe, expect, it } from 'vitest';
import { matchesPrincipal, overlayFor, type PrincipalRule } from '../../../src/core/dispatch/principals.js';
import type { Principal } from '../../../src/types.js';

const alice: Principal = {
  id: 'oauth:alice',
  kind: 'oauth',
  subject: 'alice',
  clientId: 'cursor',
  claims: { sub: 'alice', groups: ['staff', 'admins'], tier: 'gold' },
};
const ci: Principal = { id: 'token:ci-1', kind: 'token', tokenName: 'ci-1' };

const rule = (name: string, match: PrincipalRule['match']): PrincipalRule => ({ match, overlay: { name } });

describe('principals: which entry fits a caller', () => {
  it('matches a token name, a subject and a client id by glob, and a claim by value or array membership', () => {
    expect(matchesPrincipal({ token: 'ci-*' }, ci)).toBe(true);
    expect(matchesPrincipal({ token: 'ci-*' }, alice)).toBe(false);
    expect(matchesPrincipal({ subject: 'ali*' }, alice)).toBe(true);
    expect(matchesPrincipal({ client: 'cursor' }, alice)).toBe(true);
    expect(matchesPrincipal({ claim: { name: 'groups', equals: 'admins' } }, alice)).toBe(true);
    expect(matchesPrincipal({ claim: { name: 'groups', equals: 'ops' } }, alice)).toBe(false);
    expect(matchesPrincipal({ claim: { name: 'tier', equals: 'gold' } }, alice)).toBe(true);
    expect(matchesPrincipal({ claim: { name: 'tier', equals: 'gold' } }, ci)).toBe(false);
    // Every field given must fit.
    expect(matchesPrincipal({ subject: 'alice', client: 'other' }, alice)).toBe(false);
    expect(matchesPrincipal({}, ci)).toBe(true);
  });

  it('takes the first entry that fits, in config order; a caller none fits gets no overlay', () => {
    const rules = [
      rule('admins', { claim: { name: 'groups', equals: 'admins' } }),
      rule('staff', { claim: { name: 'groups', equals: 'staff' } }),
      rule('bots', { token: 'ci-*' }),
    ];
    expect(overlayFor(alice, rules)?.name).toBe('admins');
    expect(overlayFor(ci, rules)?.name).toBe('bots');
    expect(overlayFor({ id: 'anonymous', kind: 'anonymous' }, rules)).toBeUndefined();
    expect(overlayFor({ id: 'anonymous', kind: 'anonymous' }, [...rules, rule('everyone', {})])?.name).toBe(
      'everyone',
    );
  });
});
