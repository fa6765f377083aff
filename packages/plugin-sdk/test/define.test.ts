import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { defineTool, describeTool, normalizeToolReturn, type ToolContext } from '../src/index.js';

const weather = defineTool({
  name: 'weather_now',
  description: 'Current weather for a city',
  input: z.object({ city: z.string().min(1), units: z.enum(['metric', 'imperial']).default('metric') }),
  output: z.object({ tempC: z.number() }),
  annotations: { readOnlyHint: true, openWorldHint: true },
  execute: (input) => ({ structuredContent: { tempC: input.city.length } }),
});

describe('defineTool', () => {
  // What defineTool infers at compile time (input from the schema, wrong fields refused) is
  // test/types/define-tool.ts, checked by `npm run check`; these are what it does at run time.
  it('keeps the schemas it was given: the input parses with defaults filled, the output checks', () => {
    expect(weather.input.parse({ city: 'Oslo' })).toEqual({ city: 'Oslo', units: 'metric' });
    expect(() => weather.input.parse({ city: '' })).toThrow();
    expect(weather.output?.parse({ tempC: 3 })).toEqual({ tempC: 3 });
    expect(weather.execute({ city: 'Oslo', units: 'metric' }, {} as ToolContext<unknown>)).toEqual({
      structuredContent: { tempC: 4 },
    });
  });

  it('refuses an input that is not a zod object schema', () => {
    const input = z.string() as unknown as z.ZodObject<z.ZodRawShape>;
    expect(() => defineTool({ name: 't', description: 'd', input, execute: () => '' })).toThrow(
      /zod object schema/,
    );
  });

  it('refuses names clients would reject, and empty descriptions', () => {
    const base = { description: 'd', input: z.object({}), execute: () => '' };
    expect(() => defineTool({ ...base, name: 'has space' })).toThrow(/Invalid tool name "has space"/);
    expect(() => defineTool({ ...base, name: 'x'.repeat(65) })).toThrow(/Invalid tool name/);
    expect(() => defineTool({ ...base, name: 'ok', description: '  ' })).toThrow(/non-empty description/);
  });
});

describe('describeTool', () => {
  it('produces plain JSON Schema 2020-12 for input (caller side) and output', () => {
    const descriptor = describeTool(weather, {
      owner: { kind: 'plugin', pluginId: 'weather' },
      executor: { kind: 'plugin', pluginId: 'weather', toolName: 'weather_now' },
    });
    expect(descriptor.inputSchema).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        city: { type: 'string', minLength: 1 },
        units: { enum: ['metric', 'imperial'], default: 'metric' },
      },
      required: ['city'],
    });
    expect(descriptor.outputSchema).toMatchObject({ type: 'object', required: ['tempC'] });
    expect(descriptor.annotations).toEqual({ readOnlyHint: true, openWorldHint: true });
    expect(JSON.parse(JSON.stringify(descriptor))).toEqual(descriptor);
  });
});

describe('normalizeToolReturn', () => {
  it('accepts a string, content blocks, or a result object', () => {
    expect(normalizeToolReturn('hi')).toEqual({ content: [{ type: 'text', text: 'hi' }] });
    const image = { type: 'image', data: 'AAAA', mimeType: 'image/png' } as const;
    expect(normalizeToolReturn([image])).toEqual({ content: [image] });
    expect(normalizeToolReturn({ content: [], isError: true })).toEqual({ content: [], isError: true });
  });

  it('fills content with JSON text when only structured output is returned', () => {
    expect(normalizeToolReturn({ structuredContent: { a: 1 } })).toEqual({
      content: [{ type: 'text', text: '{"a":1}' }],
      structuredContent: { a: 1 },
    });
  });

  it('says what is wrong with an unsupported return', () => {
    expect(() => normalizeToolReturn(42)).toThrow(/returned number/);
    expect(() => normalizeToolReturn(null)).toThrow(/returned null/);
    expect(() => normalizeToolReturn([{ type: 'video' }])).toThrow(
      /content\[0\] has unsupported type "video"/,
    );
    expect(() => normalizeToolReturn({ structuredContent: [1] })).toThrow(
      /structuredContent must be an object/,
    );
    expect(() => normalizeToolReturn({})).toThrow(/neither content nor structuredContent/);
  });

  it('a plain object returned by mistake gets a hint: JSON.stringify it, or return it as structuredContent', () => {
    expect(() => normalizeToolReturn({ temperature: 21, unit: 'C' })).toThrow(
      /plain object \(\{ temperature, unit \}\) .*return JSON\.stringify\(value\) .*\{ structuredContent: value \}/,
    );
  });
});
