import { describe, expect, it } from 'vitest';
import {
  matchesPrincipal,
  overlaidApprovals,
  overlaidPolicy,
  overlayDecision,
  overlayFor,
  type PrincipalRule,
} from '../../../src/core/dispatch/principals.js';
import type { PolicySubject } from '../../../src/core/register/policy.js';
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

const tool = (name: string, source: PolicySubject['source'] = 'plugin'): PolicySubject => ({
  name,
  source,
  sourceId: source === 'plugin' ? 'notes' : source,
});

describe('principals: an overlay only narrows', () => {
  it('keeps only what allow matches, takes away what deny matches (deny wins), and names the key in a refusal', () => {
    const overlay = { name: 'ci', allow: ['notes_*', 'text_*'], deny: ['notes_delete'] };
    expect(overlayDecision(overlay, tool('notes_add'), ci)).toEqual({ allowed: true });
    const outside = overlayDecision(overlay, tool('exec', 'builtin'), ci);
    expect(outside).toMatchObject({ allowed: false, rule: 'allow' });
    expect(outside.allowed === false && outside.message).toBe(
      '"exec" is not for token:ci-1: principals.ci.tools.allow [notes_*, text_*] does not match it',
    );
    const denied = overlayDecision(overlay, tool('notes_delete'), ci);
    expect(denied).toMatchObject({ allowed: false, rule: 'deny' });
    expect(denied.allowed === false && denied.message).toBe(
      '"notes_delete" is not for token:ci-1: principals.ci.tools.deny denies it',
    );
    // No allow or deny: the overlay keeps everything the host's policy let into the Map.
    expect(overlayDecision({ name: 'all' }, tool('exec', 'builtin'), ci)).toEqual({ allowed: true });
  });

  it("adds its deferrals to the host's, puts its approval rules first and replaces mcpClients only when it has them", () => {
    expect(overlaidPolicy({ deny: ['x'], defer: ['a'] }, { name: 'p', defer: ['b'] })).toEqual({
      deny: ['x'],
      defer: ['a', 'b'],
    });
    const host = { allow: ['*'] };
    expect(overlaidPolicy(host, { name: 'p' })).toBe(host);
    const settings = { rules: [{ tool: 'deploy' }], timeoutMs: 5000, mcpClients: ['desk'] };
    expect(overlaidApprovals(settings, { name: 'p', approve: [{ tool: 'notes_delete' }] })).toEqual({
      rules: [{ tool: 'notes_delete' }, { tool: 'deploy' }],
      timeoutMs: 5000,
      mcpClients: ['desk'],
    });
    expect(overlaidApprovals(settings, { name: 'p', mcpClients: [] })?.mcpClients).toEqual([]);
    expect(overlaidApprovals(settings, { name: 'p' })).toBe(settings);
    expect(overlaidApprovals(undefined, { name: 'p', approve: [{ tool: 'x' }] })).toEqual({
      rules: [{ tool: 'x' }],
      timeoutMs: 60_000,
      mcpClients: [],
    });
  });
});
