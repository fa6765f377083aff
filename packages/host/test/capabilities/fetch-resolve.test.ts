import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatIp, type IpAddress, specialAddress } from '../../src/capabilities/fetch-address.js';
import {
  ANSWER_TTL_MS,
  cachingResolver,
  type FetchResolver,
  hostAddresses,
  MAX_ANSWERS,
} from '../../src/capabilities/fetch-resolve.js';
import { live, resolver } from './helpers.js';

describe('the address a URL names', () => {
  it('an IP host in any notation is the address the URL parser normalizes it to; no resolver asked', async () => {
    const resolve = resolver({});
    for (const [host, expected] of [
      ['0x7f.1', '127.0.0.1'],
      ['2130706433', '127.0.0.1'],
      ['127.1', '127.0.0.1'],
      ['0177.0.0.1', '127.0.0.1'],
      ['0x7f000001', '127.0.0.1'],
      ['127.0.0.1.', '127.0.0.1'],
      ['0xa9.0xfe.0xa9.0xfe', '169.254.169.254'],
      ['[::ffff:7f00:1]', '::ffff:7f00:1'],
      ['[::ffff:127.0.0.1]', '::ffff:7f00:1'],
      ['[0:0:0:0:0:ffff:7f00:1]', '::ffff:7f00:1'],
      ['[::127.0.0.1]', '::7f00:1'],
    ] as const) {
      const addresses = await hostAddresses(new URL(`http://${host}:8080/`), resolve, live());
      expect(addresses.map(formatIp), host).toEqual([expected]);
      expect(specialAddress(addresses[0] as IpAddress), host).toBeDefined();
    }
    expect(resolve.asked).toEqual([]);
  });

  it('any IPv4 notation the URL parser accepts is checked as a dotted quad', async () => {
    const resolve = resolver({});
    await fc.assert(
      fc.asyncProperty(fc.ipV4Extended(), async (host) => {
        const url = new URL(`http://${host}/`);
        const [address] = await hostAddresses(url, resolve, live());
        expect(address && formatIp(address)).toBe(url.hostname);
      }),
    );
    expect(resolve.asked).toEqual([]);
  });

  it('a name is resolved, and answers that are not IP addresses are dropped', async () => {
    const resolve = resolver({ 'api.example.test': ['127.1', 'not an ip', '::1', '10.0.0.1'] });
    const addresses = await hostAddresses(new URL('http://api.example.test/'), resolve, live());
    expect(addresses.map(formatIp)).toEqual(['::1', '10.0.0.1']);
    expect(resolve.asked).toEqual(['api.example.test']);
  });
});

describe('answers of the system resolver are reused briefly', () => {
  function counting(answer: (hostname: string, call: number) => Promise<readonly { address: string }[]>) {
    const asked: string[] = [];
    const resolve: FetchResolver = (hostname) => {
      asked.push(hostname);
      return answer(hostname, asked.length);
    };
    return { resolve, asked };
  }

  it('an answer is reused until it is ANSWER_TTL_MS old, then asked for again', async () => {
    let time = 0;
    const { resolve, asked } = counting(async (_name, call) => [{ address: `10.0.0.${call}` }]);
    const cached = cachingResolver(resolve, () => time);
    expect(await cached('a.example.test')).toEqual([{ address: '10.0.0.1' }]);
    time = ANSWER_TTL_MS - 1;
    expect(await cached('a.example.test')).toEqual([{ address: '10.0.0.1' }]);
    time = ANSWER_TTL_MS;
    expect(await cached('a.example.test')).toEqual([{ address: '10.0.0.2' }]);
    expect(asked).toEqual(['a.example.test', 'a.example.test']);
  });

  it('concurrent questions about one name are asked once; other names are asked on their own', async () => {
    const { resolve, asked } = counting(async () => [{ address: '10.0.0.1' }]);
    const cached = cachingResolver(resolve, () => 0);
    await Promise.all([cached('a.example.test'), cached('a.example.test'), cached('b.example.test')]);
    expect(asked).toEqual(['a.example.test', 'b.example.test']);
  });

  it('a failure is not reused', async () => {
    const { resolve, asked } = counting(async (_name, call) => {
      if (call === 1) throw Object.assign(new Error('temporary'), { code: 'EAI_AGAIN' });
      return [{ address: '10.0.0.1' }];
    });
    const cached = cachingResolver(resolve, () => 0);
    await expect(cached('a.example.test')).rejects.toThrow('temporary');
    expect(await cached('a.example.test')).toEqual([{ address: '10.0.0.1' }]);
    expect(asked).toHaveLength(2);
  });

  it('at most MAX_ANSWERS names are remembered, the oldest forgotten first', async () => {
    const { resolve, asked } = counting(async () => [{ address: '10.0.0.1' }]);
    const cached = cachingResolver(resolve, () => 0);
    for (let i = 0; i <= MAX_ANSWERS; i++) await cached(`n${i}.example.test`);
    await cached(`n${MAX_ANSWERS}.example.test`); // still remembered
    await cached('n0.example.test'); // forgotten to make room
    expect(asked).toHaveLength(MAX_ANSWERS + 2);
    expect(asked.at(-1)).toBe('n0.example.test');
  });
});
