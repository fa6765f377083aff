import type { CallRequest } from '@toolhost/plugin-sdk/protocol';
import { describe, expect, it } from 'vitest';
import { callRequestJson, callRequests } from '../../packages/host/src/sandbox/call-request.js';
import { readRequest } from '../../packages/plugin-sdk/src/runtime/requests.js';

const logs = { linesPerCall: 10, bytesPerCall: 100, lineBytes: 50, linesPerMinute: 60, bytesPerMinute: 600 };

const settings = {
  toolName: 'say "hi"\u2028',
  config: { nested: { list: [1, 'two', null], quote: '"\\' } },
  env: { TOKEN: 'a"b\nc', EMPTY: '' },
  envGranted: ['TOKEN', 'EMPTY'],
  maxReplyChars: 65_536,
  logs,
};

/** What the runtime reads of a request: all of it, but only the log caps it applies (per call). */
function asRead(request: CallRequest): unknown {
  const whole = JSON.parse(JSON.stringify(request)) as Record<string, unknown>;
  return { ...whole, logs: { linesPerCall: 10, bytesPerCall: 100, lineBytes: 50 } };
}

const inputs: unknown[] = [
  { text: 'hello' },
  { text: '"quoted" \\ back \u0000 nul \n newline \ud83d\ude00 emoji \ud800 lone' },
  { deep: { a: [1, 2, { b: true }] }, n: -0.5e-7 },
  {},
  [],
  'a bare string',
  null,
];

describe('a plugin call request, from the host to the runtime', () => {
  const requestOf = callRequests(settings)(settings.toolName);

  it.each(inputs.map((input) => [JSON.stringify(input), input]))(
    'reads back as the whole request (input %s)',
    (_, input) => {
      const request = requestOf({ callId: 'c-"1"', toolUseId: 'toolu_1', sessionId: 's\n1', input });
      expect(readRequest(callRequestJson(request))).toStrictEqual(asRead(request));
      expect(readRequest(callRequestJson(request))).toMatchObject({
        callId: 'c-"1"',
        toolUseId: 'toolu_1',
        sessionId: 's\n1',
        input,
        toolName: settings.toolName,
        config: settings.config,
        env: settings.env,
        envGranted: settings.envGranted,
      });
    },
  );

  it("reads each call's settings, when they change between calls and back", () => {
    const other = callRequests({
      ...settings,
      env: { TOKEN: 'other' },
      envGranted: ['TOKEN'],
      maxReplyChars: 9,
    })(settings.toolName);
    const call = { callId: 'c', toolUseId: 't', sessionId: 's', input: {} };
    const first = readRequest(callRequestJson(requestOf(call)));
    const second = readRequest(callRequestJson(other(call)));
    const third = readRequest(callRequestJson(requestOf(call)));
    expect(first).toMatchObject({ env: settings.env, maxReplyChars: 65_536 });
    expect(second).toMatchObject({ env: { TOKEN: 'other' }, envGranted: ['TOKEN'], maxReplyChars: 9 });
    expect(third).toMatchObject({ env: settings.env, maxReplyChars: 65_536 });
    // Read once while they stay the same, and shared by the calls that bring them: frozen.
    const fourth = readRequest(callRequestJson(requestOf(call)));
    expect(fourth.env).toBe(third.env);
    expect(Object.isFrozen(fourth.env)).toBe(true);
    expect(Object.isFrozen(fourth.envGranted)).toBe(true);
  });

  it("gives a plugin's tools one settings text: read once for all of them, each with its own name", () => {
    const ofTool = callRequests(settings);
    const call = { callId: 'c', toolUseId: 't', sessionId: 's', input: {} };
    const first = readRequest(callRequestJson(ofTool('first')(call)));
    const second = readRequest(callRequestJson(ofTool('second')(call)));
    expect([first.toolName, second.toolName]).toEqual(['first', 'second']);
    expect(second.env).toBe(first.env);
    expect(second.config).toStrictEqual(settings.config);
  });

  it('sends a request made elsewhere, or one without input, as one JSON text', () => {
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
    expect(readRequest(callRequestJson(plain))).toStrictEqual(plain);
    const noInput = requestOf({ callId: 'c', toolUseId: 'u', sessionId: 's', input: undefined });
    expect(callRequestJson(noInput)).toBe(JSON.stringify(noInput));
    expect(readRequest(callRequestJson(noInput))).not.toHaveProperty('input');
  });

  it('fails as the whole request would on an input JSON cannot carry', () => {
    const request = requestOf({ callId: 'c', toolUseId: 'u', sessionId: 's', input: { n: 1n } });
    expect(() => JSON.stringify(request)).toThrow(TypeError);
    expect(() => callRequestJson(request)).toThrow(TypeError);
  });
});
