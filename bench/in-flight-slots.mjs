// What recording a request in flight costs a supervised `serve` process (serve/in-flight-slots.ts):
// `started` (one positional write of the slot) plus `answered` (one positional write of a byte),
// per request, for a number id and for a string id, with 1 and with 64 requests in flight; beside
// a bare Map set + delete (what the old in-memory record cost). Blocks interleaved; this machine is
// noisy: read the medians. Run with `npm run build && node bench/in-flight-slots.mjs`.
import { InFlightSlots, InFlightSlotsFile } from '../packages/host/dist/serve/in-flight-slots.js';

const BLOCKS = 30;
const PER_BLOCK = 20_000;

const file = InFlightSlotsFile.open();
const slots = new InFlightSlots(file.fd);
const map = new Map();
const stringIds = Array.from({ length: 64 }, (_, i) => `request-${i}`);

const paths = {
  'slots, number id, 1 in flight': () => {
    for (let i = 0; i < PER_BLOCK; i++) {
      slots.started(i, 'echo');
      slots.answered(i);
    }
  },
  'slots, string id, 1 in flight': () => {
    for (let i = 0; i < PER_BLOCK; i++) {
      const id = stringIds[i & 63];
      slots.started(id, 'echo');
      slots.answered(id);
    }
  },
  'slots, number id, 64 in flight': () => {
    for (let i = 0; i < PER_BLOCK; i += 64) {
      for (let k = 0; k < 64; k++) slots.started(i + k, 'echo');
      for (let k = 0; k < 64; k++) slots.answered(i + k);
    }
  },
  'Map set + delete (no file)': () => {
    for (let i = 0; i < PER_BLOCK; i++) {
      map.set(i, 'echo_text');
      map.delete(i);
    }
  },
};

const samples = Object.fromEntries(Object.keys(paths).map((name) => [name, []]));
for (const run of Object.values(paths)) run(); // warm-up
for (let block = 0; block < BLOCKS; block++) {
  for (const [name, run] of Object.entries(paths)) {
    const start = process.hrtime.bigint();
    run();
    samples[name].push(Number(process.hrtime.bigint() - start) / PER_BLOCK);
  }
}
if (file.read().length !== 0) throw new Error('a slot was left taken');
file.close();

const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
console.log(`ns per request (started + answered), median of ${BLOCKS} blocks of ${PER_BLOCK}`);
for (const [name, values] of Object.entries(samples)) {
  console.log(`${name.padEnd(34)} ${median(values).toFixed(0).padStart(7)}`);
}
