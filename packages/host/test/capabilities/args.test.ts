import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CapabilityProvider, isCapabilityError } from '../../src/capabilities/index.js';
import { fakeTransport, live, makeProject, type Project, PUBLIC_IP, provider, resolver } from './helpers.js';

/** Arguments as they arrive: parsed from the JSON plugin code wrote. */
const json = (text: string): unknown => JSON.parse(text);

let project: Project;
let p: CapabilityProvider;
const prototypeBefore = Object.getOwnPropertyNames(Object.prototype).sort();

beforeAll(async () => {
  project = await makeProject();
  p = provider(
    project.root,
    { net: ['api.example.com'], fs: { read: ['data'], write: ['out'] } },
    { net: ['api.example.com'], fs: { read: ['data'], write: ['out'] } },
    {
      resolve: resolver({}, [PUBLIC_IP]),
      transport: fakeTransport(),
      limits: { fetchMaxBytes: 1000, fsMaxBytes: 1000 },
    },
  );
});

afterAll(async () => {
  await project.cleanup();
  // Nothing any case below sent reached a shared prototype.
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeBefore);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});

async function rejection(capability: string, args: unknown): Promise<Error> {
  try {
    await p.invoke(capability, args, live());
  } catch (error) {
    return error as Error;
  }
  throw new Error(`${capability} accepted ${JSON.stringify(args)?.slice(0, 100)}`);
}

describe('unknown capabilities', () => {
  for (const name of [
    'fs.unlink',
    'exec',
    'sleep',
    '__proto__',
    'constructor',
    'toString',
    'hasOwnProperty',
    '',
  ]) {
    it(`refuses ${JSON.stringify(name)}`, async () => {
      const error = await rejection(name, { path: 'data/a.txt' });
      expect(error.message).toBe(`unknown capability ${JSON.stringify(name)}`);
      expect(isCapabilityError(error) && error.code).toBe('unknown-capability');
    });
  }

  it('clips a giant capability name in the message', async () => {
    const error = await rejection('x'.repeat(100_000), {});
    expect(error.message.length).toBeLessThan(100);
  });
});

describe('hostile arguments are rejected with a clear message', () => {
  const cases: Record<string, { capability: string; args: unknown; message: string }> = {
    'a __proto__ key beside the path': {
      capability: 'fs.readFile',
      args: json('{"path": "data/a.txt", "__proto__": {"polluted": true}}'),
      message: 'ctx.fs.readFile received invalid arguments: (root): Unrecognized key: "__proto__"',
    },
    'a constructor key': {
      capability: 'fs.stat',
      args: json('{"path": "data/a.txt", "constructor": {"prototype": {"polluted": true}}}'),
      message: 'Unrecognized key: "constructor"',
    },
    'a __proto__ header': {
      capability: 'fetch',
      args: json('{"url": "https://api.example.com/", "options": {"headers": {"__proto__": "x"}}}'),
      message: 'options.headers: "__proto__" is not a valid header name',
    },
    'a __proto__ object as options': {
      capability: 'fetch',
      args: json('{"url": "https://api.example.com/", "options": {"__proto__": {"method": "DELETE"}}}'),
      message: 'Unrecognized key: "__proto__"',
    },
    'a path of the wrong type': {
      capability: 'fs.readFile',
      args: { path: 42 },
      message: 'path: Invalid input: expected string, received number',
    },
    'a path as an array': {
      capability: 'fs.readdir',
      args: { path: ['data'] },
      message: 'path: Invalid input: expected string, received array',
    },
    'no arguments': { capability: 'fs.stat', args: null, message: '(root): Invalid input: expected object' },
    'a string instead of an object': {
      capability: 'fetch',
      args: 'https://api.example.com/',
      message: '(root): Invalid input: expected object',
    },
    'options of the wrong type': {
      capability: 'fetch',
      args: { url: 'https://api.example.com/', options: 'POST' },
      message: 'options: Invalid input: expected object',
    },
    'a header value that is an object': {
      capability: 'fetch',
      args: { url: 'https://api.example.com/', options: { headers: { 'x-a': { nested: { deeper: [1] } } } } },
      message: 'options.headers.x-a: Invalid input: expected string, received object',
    },
    'a deeply nested value': {
      capability: 'fs.writeFile',
      args: {
        path: 'out/x',
        data: Array.from({ length: 10_000 }).reduce<unknown>((inner) => ({ inner }), 'x'),
      },
      message: 'data: Invalid input: expected string, received object',
    },
    'an empty path': { capability: 'fs.readFile', args: { path: '' }, message: 'path: must not be empty' },
    'a giant path': {
      capability: 'fs.readFile',
      args: { path: 'a/'.repeat(1_000_000) },
      message: 'path: Too big: expected string to have <=4096 characters',
    },
    'a giant url': {
      capability: 'fetch',
      args: { url: `https://api.example.com/${'a'.repeat(1_000_000)}` },
      message: 'url: Too big: expected string to have <=8192 characters',
    },
    'a giant header name': {
      capability: 'fetch',
      args: { url: 'https://api.example.com/', options: { headers: { ['x'.repeat(100_000)]: 'v' } } },
      message: 'Invalid key in record: Too big: expected string to have <=256 characters',
    },
    'too many headers': {
      capability: 'fetch',
      args: {
        url: 'https://api.example.com/',
        options: { headers: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`x-${i}`, 'v'])) },
      },
      message: 'options.headers: at most 64 headers',
    },
    'a giant body': {
      capability: 'fetch',
      args: { url: 'https://api.example.com/', options: { method: 'POST', body: 'b'.repeat(1_000_000) } },
      message: 'options.body: is over the fetchMaxBytes limit of 1000 bytes',
    },
    'giant file data': {
      capability: 'fs.writeFile',
      args: { path: 'out/x', data: 'd'.repeat(1_000_000) },
      message: 'data: is over the fsMaxBytes limit of 1000 bytes',
    },
    'an unknown fetch option': {
      capability: 'fetch',
      args: { url: 'https://api.example.com/', options: { redirect: 'follow' } },
      message: 'options: Unrecognized key: "redirect"',
    },
  };

  for (const [name, { capability, args, message }] of Object.entries(cases)) {
    it(name, async () => {
      const error = await rejection(capability, args);
      expect(error.message).toContain(message);
      expect(error.message.length).toBeLessThan(1000);
      expect(isCapabilityError(error) && error.code).toBe('invalid-args');
    });
  }

  it('valid arguments still work after all of that', async () => {
    expect(await p.invoke('fs.readFile', { path: 'data/a.txt' }, live())).toBe('alpha\n');
    expect(await p.invoke('fetch', { url: 'https://api.example.com/', options: null }, live())).toMatchObject(
      {
        body: 'ok',
      },
    );
  });
});

describe('environment variables', () => {
  it('exposes only names declared and granted, and only their values', () => {
    const env = provider('.', { env: ['TOKEN', 'HOME', 'UNSET'] }, { env: ['TOKEN', 'UNSET', 'PATH'] });
    expect(env.envGranted).toEqual(['TOKEN', 'UNSET']);
    const processEnv = json('{"TOKEN": "t", "HOME": "/root", "PATH": "/bin", "__proto__": "x"}') as Record<
      string,
      string
    >;
    expect(env.envValues(processEnv)).toEqual({ TOKEN: 't' });
  });
});

describe('provider options', () => {
  it('refuses invalid limits', () => {
    expect(() => provider('.', {}, {}, { limits: { fetchTimeoutMs: -1 } })).toThrow(
      'capability limit fetchTimeoutMs must be a non-negative integer, got -1',
    );
    expect(() => provider('.', {}, {}, { limits: { fsMaxBytes: Number.NaN } })).toThrow('fsMaxBytes');
  });
});
