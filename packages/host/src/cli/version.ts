import { readFileSync } from 'node:fs';

/** The version of `@toolhost/host`, from its package.json (`src/cli` and `dist/cli` are both two levels down). */
export const version: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
