// Writes `toolhost.config.schema.json` from the zod schema of the built package, so editors
// complete and check exactly what the host accepts. Run `npm run build` first; a test fails when
// the shipped file drifts from `configJsonSchema()`.
import { writeFile } from 'node:fs/promises';
import { configJsonSchema } from '../dist/config/load.js';

const target = new URL('../toolhost.config.schema.json', import.meta.url);
await writeFile(target, `${JSON.stringify(configJsonSchema(), null, 2)}\n`);
console.log(`wrote ${target.pathname}`);
