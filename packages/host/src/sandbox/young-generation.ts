import { setFlagsFromString } from 'node:v8';

/**
 * The executor starts with a large young generation for its own heap (`--max-semi-space-size`,
 * see process.ts). V8 reads that flag again for every isolate created later, and there it wins
 * over the young-generation size isolated-vm derives from the plugin's `memoryMb`: each plugin
 * isolate could grow two 64 MB semi-spaces under allocation (measured: 74 MB of heap after a
 * garbage loop that needs 12 MB with the flag unset). Called once the executor's own heap exists,
 * this unsets the flag, so plugin isolates get isolated-vm's size again.
 */
export function pluginIsolatesUseTheirOwnYoungGeneration(): void {
  setFlagsFromString('--max-semi-space-size=0');
}
