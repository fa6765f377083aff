#!/usr/bin/env node
/**
 * The `toolhost` command. Run through `bin/toolhost.js` (the package's bin) or directly; every
 * command's logic lives in `run.ts` and `commands/`.
 */
import { run } from './run.js';

process.exitCode = await run(process.argv.slice(2));
