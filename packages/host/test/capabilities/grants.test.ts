import type { PluginPermissions } from '@toolhost/plugin-sdk';
import { describe, expect, it } from 'vitest';
import { patternCovers, patternMatchesUrl } from '../../src/capabilities/host-patterns.js';
import {
  effectivePermissions,
  missingGrants,
  normalizeFsRoot,
  parseHostPattern,
} from '../../src/capabilities/index.js';

const pattern = (text: string) => {
  const parsed = parseHostPattern(text);
  if (parsed === undefined) throw new Error(`invalid pattern ${text}`);
  return parsed;
};
const matches = (p: string, url: string) => patternMatchesUrl(pattern(p), new URL(url));

describe('host patterns', () => {
  it('canonicalizes case and IP forms', () => {
    expect(parseHostPattern('API.Example.COM')?.text).toBe('api.example.com');
    expect(parseHostPattern('127.1:8080')?.text).toBe('127.0.0.1:8080');
    expect(parseHostPattern('[0:0::1]')?.text).toBe('[::1]');
    expect(parseHostPattern('*.Example.com')?.text).toBe('*.example.com');
  });

  it('refuses malformed patterns, bare and over-wide wildcards', () => {
    for (const bad of [
      '',
      '*',
      '*.com',
      '*.10.0.0.1',
      'a.*.com',
      'https://api.example.com',
      'api.example.com/path',
      'user@api.example.com',
      'api.example.com:0',
      'api.example.com:65536',
      'api example.com',
      'x'.repeat(400),
      42,
      null,
    ]) {
      expect(parseHostPattern(bad), String(bad)).toBeUndefined();
    }
  });

  it('matches hosts exactly, case-insensitively', () => {
    expect(matches('api.example.com', 'https://API.example.com/x')).toBe(true);
    expect(matches('api.example.com', 'https://api.example.com.evil.test/')).toBe(false);
    expect(matches('api.example.com', 'https://evilapi.example.com/')).toBe(false);
    expect(matches('api.example.com', 'https://example.com/')).toBe(false);
  });

  it('matches a wildcard on subdomains at any depth but never on the apex', () => {
    expect(matches('*.example.com', 'https://api.example.com/')).toBe(true);
    expect(matches('*.example.com', 'https://a.b.example.com/')).toBe(true);
    expect(matches('*.example.com', 'https://example.com/')).toBe(false);
    expect(matches('*.example.com', 'https://badexample.com/')).toBe(false);
  });

  it('without a port matches only the default port; with one, only that port', () => {
    expect(matches('api.example.com', 'https://api.example.com/')).toBe(true);
    expect(matches('api.example.com', 'http://api.example.com/')).toBe(true);
    expect(matches('api.example.com', 'https://api.example.com:8443/')).toBe(false);
    expect(matches('api.example.com:8443', 'https://api.example.com:8443/')).toBe(true);
    expect(matches('api.example.com:8443', 'https://api.example.com/')).toBe(false);
    expect(matches('api.example.com:443', 'https://api.example.com/')).toBe(true);
    expect(matches('127.0.0.1:8080', 'http://127.1:8080/')).toBe(true);
  });

  it('a grant covers the same pattern, or subdomains under a granted wildcard', () => {
    expect(patternCovers(pattern('api.example.com'), pattern('API.example.com'))).toBe(true);
    expect(patternCovers(pattern('*.example.com'), pattern('api.example.com'))).toBe(true);
    expect(patternCovers(pattern('*.example.com'), pattern('*.api.example.com'))).toBe(true);
    expect(patternCovers(pattern('*.example.com'), pattern('example.com'))).toBe(false);
    expect(patternCovers(pattern('api.example.com'), pattern('*.api.example.com'))).toBe(false);
    expect(patternCovers(pattern('*.api.example.com'), pattern('*.example.com'))).toBe(false);
    expect(patternCovers(pattern('api.example.com'), pattern('api.example.com:8080'))).toBe(false);
    expect(patternCovers(pattern('api.example.com:8080'), pattern('api.example.com'))).toBe(false);
  });
});

describe('fs roots', () => {
  it('normalizes ./data, data/, data//sub and the project root', () => {
    expect(normalizeFsRoot('./data')).toBe('data');
    expect(normalizeFsRoot('data/')).toBe('data');
    expect(normalizeFsRoot('data//sub/./')).toBe('data/sub');
    expect(normalizeFsRoot('.')).toBe('.');
    expect(normalizeFsRoot('./')).toBe('.');
  });

  it('refuses absolute roots, .. segments, backslashes and NUL bytes', () => {
    for (const bad of [
      '/etc',
      'C:/x',
      '\\\\server\\share',
      '..',
      'data/../..',
      'data/..',
      'a\\b',
      'a\0b',
      '',
      7,
    ]) {
      expect(normalizeFsRoot(bad), String(bad)).toBeUndefined();
    }
  });
});

describe('effectivePermissions', () => {
  it('keeps only what is declared and granted, as declared, sorted', () => {
    const effective = effectivePermissions(
      {
        net: ['b.example.com', 'api.example.com', 'other.test', '*.cdn.example.com'],
        fs: { read: ['./data/cache', 'logs/'], write: ['out'] },
        env: ['TOKEN', 'HOME'],
      },
      {
        net: ['*.example.com', 'other.test:8080'],
        fs: { read: ['data'], write: ['out'] },
        env: ['TOKEN', 'PATH'],
      },
    );
    expect(effective).toEqual({
      net: ['*.cdn.example.com', 'api.example.com', 'b.example.com'],
      fs: { read: ['data/cache', 'out'], write: ['out'] },
      env: ['TOKEN'],
    });
  });

  it('a grant narrower than the declared root grants nothing', () => {
    const effective = effectivePermissions({ fs: { read: ['data'] } }, { fs: { read: ['data/sub'] } });
    expect(effective.fs.read).toEqual([]);
  });

  it('write implies read: a write grant lets a declared read root be read', () => {
    const effective = effectivePermissions({ fs: { read: ['data'] } }, { fs: { write: ['data'] } });
    expect(effective.fs).toEqual({ read: ['data'], write: [] });
  });

  it('a declared write root granted only for read is readable, not writable', () => {
    const effective = effectivePermissions({ fs: { write: ['out'] } }, { fs: { read: ['out'] } });
    expect(effective.fs).toEqual({ read: ['out'], write: [] });
  });

  it('grants alone give nothing', () => {
    const effective = effectivePermissions(
      {},
      { net: ['*.example.com'], fs: { write: ['.'] }, env: ['HOME'] },
    );
    expect(effective).toEqual({ net: [], fs: { read: [], write: [] }, env: [] });
  });

  it('survives hostile declarations without polluting anything', () => {
    const hostile = JSON.parse(
      '{"__proto__": {"polluted": true}, "net": "api.example.com", "fs": {"read": [1, null, {"__proto__": "x"}, "/etc", "../x", "data"], "constructor": {"prototype": {"polluted": true}}}, "env": [["HOME"], "HOME"]}',
    ) as PluginPermissions;
    const effective = effectivePermissions(hostile, {
      net: ['api.example.com'],
      fs: { read: ['.'] },
      env: ['HOME'],
    });
    expect(effective).toEqual({ net: [], fs: { read: ['data'], write: [] }, env: ['HOME'] });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(effectivePermissions(null as unknown as PluginPermissions, {})).toEqual({
      net: [],
      fs: { read: [], write: [] },
      env: [],
    });
  });
});

describe('missingGrants', () => {
  it('lists each declared permission that config does not grant, with its config key', () => {
    expect(
      missingGrants(
        { net: ['api.example.com', 'ok.test'], fs: { read: ['data'], write: ['out'] }, env: ['TOKEN'] },
        { net: ['ok.test'], fs: { read: ['out'] } },
        'weather',
      ),
    ).toEqual([
      {
        permission: 'permissions.net "api.example.com"',
        configKey: 'plugins.weather.grants.net',
        reason: 'not-granted',
      },
      {
        permission: 'permissions.fs.read "data"',
        configKey: 'plugins.weather.grants.fs.read',
        reason: 'not-granted',
      },
      {
        permission: 'permissions.fs.write "out"',
        configKey: 'plugins.weather.grants.fs.write',
        reason: 'not-granted',
      },
      {
        permission: 'permissions.env "TOKEN"',
        configKey: 'plugins.weather.grants.env',
        reason: 'not-granted',
      },
    ]);
  });

  it('reports invalid declarations as such, and nothing when all is granted', () => {
    const declared = { net: ['https://x.test', 3], env: ['NOT-VALID'] } as unknown as PluginPermissions;
    expect(missingGrants(declared, {})).toEqual([
      {
        permission: 'permissions.net "https://x.test"',
        configKey: 'plugins.<id>.grants.net',
        reason: 'invalid',
      },
      { permission: 'permissions.net (a number)', configKey: 'plugins.<id>.grants.net', reason: 'invalid' },
      { permission: 'permissions.env "NOT-VALID"', configKey: 'plugins.<id>.grants.env', reason: 'invalid' },
    ]);
    expect(
      missingGrants({ net: ['a.test'], fs: { read: ['./d/'] } }, { net: ['a.test'], fs: { write: ['d'] } }),
    ).toEqual([]);
  });
});
