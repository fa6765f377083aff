/**
 * Type test (compiled by `tsc -p test/types/plugin-env`, which `npm test` runs; no runtime): the
 * scaffold's plugin tsconfig (this folder's, pinned to it by test/plugins/env-typings.test.ts)
 * accepts every web global the sandbox provides. A global the typings lose fails the compile.
 */
import { definePlugin, defineTool } from '@toolhost/plugin-sdk';
import * as z from 'zod';

const id = setTimeout((n: number) => console.log('tick', n), 10, 1);
clearTimeout(id);
clearInterval(setInterval(() => console.warn('x'), 5));
queueMicrotask(() => console.error('later'));
const url = new URL('/a?b=1', 'https://api.example.com');
url.searchParams.append('c', '2');
const form = new URLSearchParams({ q: 'x' });
const bytes = new TextEncoder().encode(btoa('hi') + atob('aGk='));
const text: string = new TextDecoder().decode(bytes);
const uuid: string = crypto.randomUUID();
crypto.getRandomValues(new Uint32Array(4));
const copy = structuredClone({ when: new Date(), text, uuid });
async function get(): Promise<unknown> {
  const response = await fetch(url, { method: 'POST', headers: new Headers({ a: 'b' }), body: form });
  return response.ok ? response.json() : response.headers.get('content-type');
}
void get;
void copy;

export default definePlugin({
  id: 'web',
  tools: [defineTool({ name: 'web_t', description: 'd', input: z.object({}), execute: () => 'ok' })],
});
