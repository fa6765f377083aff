import type { CallRequest } from '@toolhost/plugin-sdk/protocol';
import { describe, expect, it } from 'vitest';
import { callRequestJson, callRequests } from '../../packages/host/src/sandbox/call-request.js';

const logs = { linesPerCall: 10, bytesPerCall: 100, lineBytes: 50, linesPerMinute: 60, bytesPerMinute: 600 };

const settings = {
  toolName: 'say "hi"\u2028',
  config: { nested: { list: [1, 'two', null], quote: '"\\' } },
  env: { TOKEN: 'a"b\nc', EMPTY: '' },
  envGranted: ['TOKEN', 'EMPTY'],
  maxReplyChars: 65_536,
  logs,
};

const inputs: unknown[] = [
  { text: 'hello' },
  { text: '"quoted" \\ back \u0000 nul \ud83d\ude00 emoji \ud800 lone' },
  { deep: { a: [1, 2, { b: true }] }, n: -0.5e-7 },
  {},
  [],
  'a bare string',
  null,
];

describe('the JSON of a plugin call request', () => {
  const requestOf = callRequests(settings);

  it.each(inputs.map((input) => [JSON.stringify(input), input]))(
    'parses to what the whole request would serialize to (input %s)',
    (_, input) => {
      const request = requestOf({ callId: 'c-"1"', toolUseId: 'toolu_1', sessionId: 's\n1', input });
      expect(JSON.parse(callRequestJson(request))).toStrictEqual(JSON.parse(JSON.stringify(request)));
      expect(JSON.parse(callRequestJson(request))).toStrictEqual({
        callId: 'c-"1"',
        toolUseId: 'toolu_1',
        sessionId: 's\n1',
        input,
        ...settings,
      });
    },
  );

  it('carries nothing it would not carry whole: the prepared settings stay off the wire', () => {
    const request = requestOf({ callId: 'c', toolUseId: 't', sessionId: 's', input: { x: 1 } });
    expect(Object.keys(JSON.parse(callRequestJson(request))).sort()).toStrictEqual(
      Object.keys(request).sort(),
    );
    expect(JSON.stringify(request)).not.toContain('callSettingsJson');
  });

  it('serializes a request made elsewhere, or one without input, whole', () => {
    const plain: CallRequest = {
      callId: 'c',
      toolName: 't',
      toolUseId: 'u',
      sessionId: 's',
      input: { x: 1 },
      config: null,
      env: {},
      envGranted: [],
      maxReplyChars: 10,
    };
    expect(callRequestJson(plain)).toBe(JSON.stringify(plain));
    const noInput = requestOf({ callId: 'c', toolUseId: 'u', sessionId: 's', input: undefined });
    expect(callRequestJson(noInput)).toBe(JSON.stringify(noInput));
    expect(JSON.parse(callRequestJson(noInput))).not.toHaveProperty('input');
  });

  it('fails as the whole request would on an input JSON cannot carry', () => {
    const request = requestOf({ callId: 'c', toolUseId: 'u', sessionId: 's', input: { n: 1n } });
    expect(() => JSON.stringify(request)).toThrow(TypeError);
    expect(() => callRequestJson(request)).toThrow(TypeError);
  });
});
