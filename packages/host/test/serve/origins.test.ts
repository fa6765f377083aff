import { describe, expect, it } from 'vitest';
import { originRule } from '../../src/serve/origins.js';

const LOCAL = ['127.0.0.1', 'localhost', '[::1]'];

describe('the Origin rule: scheme, host and port exactly', () => {
  const allowed = originRule(LOCAL).forPort(7337);

  it("accepts the server's own origin under each allowed host name", () => {
    expect(allowed('http://127.0.0.1:7337')).toBe(true);
    expect(allowed('http://localhost:7337')).toBe(true);
    expect(allowed('http://[::1]:7337')).toBe(true);
  });

  it('refuses another port of the same host: another local server is another origin', () => {
    expect(allowed('http://localhost:1')).toBe(false);
    expect(allowed('http://127.0.0.1:7338')).toBe(false);
    expect(allowed('http://[::1]:80')).toBe(false);
    // No port is port 80, not "any port".
    expect(allowed('http://localhost')).toBe(false);
  });

  it('refuses another scheme of the same host and port', () => {
    expect(allowed('ftp://localhost')).toBe(false);
    expect(allowed('https://localhost:7337')).toBe(false);
    expect(allowed('ws://127.0.0.1:7337')).toBe(false);
    expect(allowed('file://localhost')).toBe(false);
  });

  it('refuses what is not a serialized origin: null, userinfo, paths, other hosts', () => {
    for (const origin of [
      'null',
      '',
      'localhost:7337',
      'http://evil.example:7337',
      'http://localhost:7337@evil.example',
      'http://localhost:7337/',
      'http://localhost:7337/path',
      'http://127.0.0.1.evil.example:7337',
      'http://LOCALHOST:7337',
    ]) {
      expect(allowed(origin), origin).toBe(false);
    }
  });

  it('on port 80 the origin has no port, as browsers send it', () => {
    const on80 = originRule(['localhost']).forPort(80);
    expect(on80('http://localhost')).toBe(true);
    expect(on80('http://localhost:80')).toBe(false);
  });

  it('takes full origins as given, exactly: a TLS proxy in front, or another page on purpose', () => {
    const check = originRule(['localhost', 'https://tools.example', 'http://localhost:6274']).forPort(7337);
    expect(check('https://tools.example')).toBe(true);
    expect(check('http://localhost:6274')).toBe(true);
    expect(check('http://localhost:7337')).toBe(true);
    expect(check('http://tools.example')).toBe(false);
    expect(check('https://tools.example:8443')).toBe(false);
    expect(check('http://localhost:6275')).toBe(false);
  });

  it('lists what it accepts, for the refusal message', () => {
    expect(originRule(LOCAL).origins(7337)).toEqual([
      'http://127.0.0.1:7337',
      'http://localhost:7337',
      'http://[::1]:7337',
    ]);
  });

  it('refuses an allowed origin that is not one, naming it', () => {
    expect(() => originRule(['http://'])).toThrow(/allowedOrigins: "http:\/\/" is not an origin/);
    expect(() => originRule(['https://tools.example/path'])).toThrow(
      /allowedOrigins: "https:\/\/tools.example\/path" is not an origin/,
    );
  });
});
