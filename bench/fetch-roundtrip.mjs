// What one granted `ctx.fetch` round trip to a local server costs on the host side (provider
// `invoke`, no isolate), beside a bare `globalThis.fetch` and a bare `http.request` to the same
// server, interleaved in blocks in one process (this machine is noisy: compare the ratios).
// Run with `npm run build && node bench/fetch-roundtrip.mjs`.
import * as http from 'node:http';
import { createCapabilityProvider } from '@toolhost/host/internal';

const WARMUP = 2_000;
const BLOCKS = 40;
const PER_BLOCK = 100;

const server = http.createServer((_req, res) => res.end('hello'));
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address();
const literal = `127.0.0.1:${port}`;
const named = `localhost:${port}`;
const signal = new AbortController().signal;
const agent = new http.Agent({ keepAlive: true });

function providerFor(host) {
  return createCapabilityProvider({
    pluginId: 'bench',
    root: '.',
    permissions: { net: [host] },
    grants: { net: [host] },
  });
}
const byLiteral = providerFor(literal);
const byName = providerFor(named);

function bareRequest() {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: '/', agent }, (res) => {
      res.resume();
      res.on('end', resolve);
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const paths = {
  'globalThis.fetch (bare)': async () => (await fetch(`http://${literal}/`)).text(),
  'http.request (bare, keep-alive)': bareRequest,
  'ctx.fetch http://127.0.0.1:PORT': () => byLiteral.invoke('fetch', { url: `http://${literal}/` }, signal),
  'ctx.fetch http://localhost:PORT': () => byName.invoke('fetch', { url: `http://${named}/` }, signal),
};

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

for (const run of Object.values(paths)) for (let i = 0; i < WARMUP; i++) await run();
const samples = Object.fromEntries(Object.keys(paths).map((name) => [name, []]));
for (let block = 0; block < BLOCKS; block++) {
  for (const [name, run] of Object.entries(paths)) {
    for (let i = 0; i < PER_BLOCK; i++) {
      const started = performance.now();
      await run();
      samples[name].push(performance.now() - started);
    }
  }
}
const base = median(samples['globalThis.fetch (bare)']);
for (const [name, values] of Object.entries(samples)) {
  const m = median(values);
  console.log(
    `${name.padEnd(36)} median ${(m * 1000).toFixed(0).padStart(5)} µs  ×${(m / base).toFixed(2)} of bare fetch`,
  );
}
agent.destroy();
server.close();
