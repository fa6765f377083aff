/**
 * Type test (compiled by `tsc -p test/types/plugin-env`, which `npm test` runs; no runtime): the
 * scaffold's plugin tsconfig flags Node's globals while typing, rather than letting them fail at
 * run time in the sandbox. Each `@ts-expect-error` fails the compile if the global type-checks.
 */

// @ts-expect-error process is Node's, not the sandbox's
export const a = process.env.HOME;
// @ts-expect-error require is Node's, not the sandbox's
export const b = require('node:fs');
// @ts-expect-error Buffer is Node's, not the sandbox's
export const c = Buffer.from('x');
// @ts-expect-error setImmediate is Node's, not the sandbox's
setImmediate(() => {});
// @ts-expect-error __dirname is Node's, not the sandbox's
export const d = __dirname;
