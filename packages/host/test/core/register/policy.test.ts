import { describe, expect, it } from 'vitest';
import {
  groupsOf,
  isAllowedTool,
  matchesPattern,
  type PolicySubject,
} from '../../../src/core/register/policy.js';

const read: PolicySubject = { name: 'read', source: 'builtin', sourceId: 'builtin', groups: ['fs'] };
const exec: PolicySubject = { name: 'exec', source: 'builtin', sourceId: 'builtin', groups: ['runtime'] };
const weather: PolicySubject = { name: 'weather_now', source: 'plugin', sourceId: 'weather' };
const gh: PolicySubject = { name: 'mcp__github__search', source: 'mcp', sourceId: 'github' };
const custom: PolicySubject = { name: 'lookup', source: 'custom', sourceId: 'custom' };

describe('groupsOf', () => {
  it('derives groups from the source; only built-ins carry their own', () => {
    expect(groupsOf(read)).toEqual(['builtin', 'fs']);
    expect(groupsOf(weather)).toEqual(['plugins', 'plugin:weather']);
    expect(groupsOf(gh)).toEqual(['mcp', 'mcp:github']);
    expect(groupsOf(custom)).toEqual(['custom']);
  });

  it('ignores groups claimed by a plugin tool, so a plugin cannot pass as group:fs', () => {
    const sneaky: PolicySubject = { ...weather, groups: ['fs'] };
    expect(matchesPattern('group:fs', sneaky)).toBe(false);
  });
});

describe('matchesPattern', () => {
  it('matches names with * wildcards, case-insensitively', () => {
    expect(matchesPattern('READ', read)).toBe(true);
    expect(matchesPattern('weather_*', weather)).toBe(true);
    expect(matchesPattern('*_NOW', weather)).toBe(true);
    expect(matchesPattern('weather', weather)).toBe(false);
  });

  it('treats regex characters literally', () => {
    expect(matchesPattern('re.d', read)).toBe(false);
    expect(matchesPattern('mcp__github__search', gh)).toBe(true);
  });

  it('matches groups: fs, runtime, plugin:<id>, mcp:<server>, and globbed groups', () => {
    expect(matchesPattern('group:fs', read)).toBe(true);
    expect(matchesPattern('group:fs', exec)).toBe(false);
    expect(matchesPattern('group:runtime', exec)).toBe(true);
    expect(matchesPattern('group:plugin:weather', weather)).toBe(true);
    expect(matchesPattern('GROUP:Plugin:Weather', weather)).toBe(true);
    expect(matchesPattern('group:plugin:*', weather)).toBe(true);
    expect(matchesPattern('group:mcp:github', gh)).toBe(true);
    expect(matchesPattern('group:mcp:gitlab', gh)).toBe(false);
  });
});

describe('isAllowedTool', () => {
  it('allows everything under an empty policy', () => {
    for (const subject of [read, exec, weather, gh, custom])
      expect(isAllowedTool(subject, {}).allowed).toBe(true);
  });

  it('keeps every built-in out when built-ins are disabled, and nothing else', () => {
    const policy = { builtins: false };
    expect(isAllowedTool(read, policy)).toMatchObject({ allowed: false, rule: 'builtins-disabled' });
    expect(isAllowedTool(weather, policy).allowed).toBe(true);
  });

  it('lets deny win over allow, by name and by group', () => {
    expect(isAllowedTool(read, { allow: ['read'], deny: ['read'] })).toMatchObject({
      allowed: false,
      rule: 'deny',
    });
    expect(isAllowedTool(read, { allow: ['group:fs'], deny: ['re*'] })).toMatchObject({
      allowed: false,
      rule: 'deny',
    });
    expect(isAllowedTool(weather, { allow: ['weather_now'], deny: ['group:plugin:weather'] })).toMatchObject({
      allowed: false,
      rule: 'deny',
    });
    const denied = isAllowedTool(gh, { deny: ['group:mcp'] });
    expect(denied.allowed).toBe(false);
    expect(!denied.allowed && denied.message).toContain('tools.deny pattern "group:mcp"');
  });

  it('makes allow exhaustive across sources, and says how to admit a shut-out tool', () => {
    const policy = { allow: ['group:fs'] };
    expect(isAllowedTool(read, policy).allowed).toBe(true);
    const decision = isAllowedTool(weather, policy);
    expect(decision).toMatchObject({ allowed: false, rule: 'allow' });
    expect(!decision.allowed && decision.message).toContain('group:plugin:weather');
    expect(isAllowedTool(weather, { allow: ['group:fs', 'group:plugins'] }).allowed).toBe(true);
    expect(isAllowedTool(custom, { allow: ['*'] }).allowed).toBe(true);
  });

  it('denies everything with an empty allow list', () => {
    expect(isAllowedTool(custom, { allow: [] }).allowed).toBe(false);
  });
});
