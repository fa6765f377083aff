// What an MCP HTTP session costs and whether anything of it stays: initializes per second, heap
// per open session, heap after every session expired, and the SDK server's construction with
// and without the Ajv instance it builds by default. Run after `npm run build` with
// `node --expose-gc --no-node-snapshot bench/http-sessions.mjs`. The machine is noisy: compare
// ratios, not absolute numbers.
import { Agent, request } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { createHost, serveHttp } from '@toolhost/host';

if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc');
const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
});
const HELD = 2_000;
const WIDTH = 16;

async function heap() {
  for (let i = 0; i < 3; i++) {
    await new Promise((resolve) => setImmediate(resolve));
    globalThis.gc();
  }
  return process.memoryUsage().heapUsed;
}

function initialize(agent, port) {
  return new Promise((resolve, reject) => {
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'content-length': Buffer.byteLength(INIT),
    };
    const req = request({ agent, host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers }, (res) => {
      res.resume();
      res.once('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`${res.statusCode}`))));
    });
    req.once('error', reject);
    req.end(INIT);
  });
}

async function flood(port, n) {
  const agent = new Agent({ keepAlive: true, maxSockets: WIDTH });
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: WIDTH }, async () => {
      while (next < n) {
        next++;
        await initialize(agent, port);
      }
    }),
  );
  agent.destroy();
  return (n / (performance.now() - started)) * 1000;
}

const host = await createHost({ pluginsDir: false, builtins: true, configFile: false });
let expired = 0;
let onExpired = () => {};
const onSessionClose = ({ reason }) => {
  if (reason !== 'expired') return;
  expired++;
  onExpired();
};
const untilExpired = async (n) => {
  while (expired < n) await new Promise((resolve) => (onExpired = resolve));
};

// Sessions that stay open (the default idle time), then close().
const lasting = await serveHttp(host, { auth: { allowUnauthenticated: true }, maxSessions: HELD });
await flood(lasting.port, 200); // warm-up
await lasting.close();
const baseline = await heap();
const kept = await serveHttp(host, { auth: { allowUnauthenticated: true }, maxSessions: HELD });
const perSecond = await flood(kept.port, HELD);
const held = await heap();
console.log(`initialize, ${WIDTH} in flight: ${perSecond.toFixed(0)}/s`);
console.log(
  `heap per open session: ${((held - baseline) / HELD / 1024).toFixed(1)} KB (${kept.sessions} open)`,
);
await kept.close();
const closed = await heap();
console.log(`heap after close(): ${((closed - baseline) / 1024 / 1024).toFixed(2)} MB above the baseline`);

// Sessions left to expire.
const expiring = await serveHttp(host, {
  auth: { allowUnauthenticated: true },
  sessionIdleMs: 100,
  maxSessions: HELD,
  onSessionClose,
});
await flood(expiring.port, HELD);
await untilExpired(HELD);
console.log(
  `heap after ${HELD} expired: ${(((await heap()) - baseline) / 1024 / 1024).toFixed(2)} MB above the baseline`,
);
await expiring.close();
await host.close();

// The SDK server alone: with its default validator (an Ajv instance with formats) and without.
const info = { name: 'bench', version: '1' };
const capabilities = { capabilities: { tools: { listChanged: true }, logging: {} } };
const lazy = { getValidator: () => () => ({ valid: true, data: undefined, errorMessage: undefined }) };
const timings = { ajv: [], lazy: [] };
for (let block = 0; block < 20; block++) {
  for (const kind of ['ajv', 'lazy']) {
    const started = performance.now();
    for (let i = 0; i < 100; i++) {
      new Server(info, kind === 'ajv' ? capabilities : { ...capabilities, jsonSchemaValidator: lazy });
    }
    timings[kind].push((performance.now() - started) / 100);
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const ajv = median(timings.ajv.slice(5));
const without = median(timings.lazy.slice(5));
console.log(
  `new Server(): ${(ajv * 1000).toFixed(0)} µs with the default Ajv, ${(without * 1000).toFixed(0)} µs without (${(ajv / without).toFixed(1)}×)`,
);
