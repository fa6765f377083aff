/**
 * Type test (compiled by `npm run check`'s `tsc -p tsconfig.json`; never run): what `defineTool`
 * infers from a zod schema. Each `@ts-expect-error` fails the compile if the line type-checks, and
 * each `expectTypeOf` fails it if the inferred type moves. The runtime half is
 * packages/plugin-sdk/test/define.test.ts.
 */
import { defineTool, type ToolContext } from '@toolhost/plugin-sdk';
import { expectTypeOf } from 'vitest';
import * as z from 'zod';

const weather = defineTool({
  name: 'weather_now',
  description: 'Current weather for a city',
  input: z.object({ city: z.string().min(1), units: z.enum(['metric', 'imperial']).default('metric') }),
  output: z.object({ tempC: z.number() }),
  execute: (input) => ({ structuredContent: { tempC: input.city.length } }),
});

// The execute input is the schema's parsed output (defaults filled), the context the SDK's.
expectTypeOf<Parameters<typeof weather.execute>[0]>().toEqualTypeOf<{
  city: string;
  units: 'metric' | 'imperial';
}>();
expectTypeOf<Parameters<typeof weather.execute>[1]>().toEqualTypeOf<ToolContext<unknown>>();

// A wrong field and a wrong type are refused.
defineTool({
  name: 't',
  description: 'd',
  input: z.object({ n: z.number() }),
  execute: (input) => {
    // @ts-expect-error -- `m` is not in the schema
    void input.m;
    // @ts-expect-error -- `n` is a number, not a string
    const s: string = input.n;
    return String(s);
  },
});

// Structured output off the output schema is refused.
defineTool({
  name: 't',
  description: 'd',
  input: z.object({}),
  output: z.object({ ok: z.boolean() }),
  // @ts-expect-error -- structuredContent must match the output schema
  execute: () => ({ structuredContent: { ok: 'yes' } }),
});

/** Never called: the input must be a zod object schema, not a string schema. */
export const notAnObjectSchema = () =>
  // @ts-expect-error -- a string schema is no tool input
  defineTool({ name: 't', description: 'd', input: z.string(), execute: () => '' });
