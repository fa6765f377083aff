// The dashboard's cost to in-process calls: 20,000 `session.call`s of an echo tool, interleaved in
// blocks of 100, on a host served without the dashboard, with it (no page open), and with a page
// reading /api/events. Run: npm run build && node bench/dashboard-hub.mjs
import { request } from 'node:http';
import { createHost, serveHttp } from '@toolhost/host';
import { defineTool } from '@toolhost/plugin-sdk';
import * as z from 'zod';

const echo = defineTool({
  name: 'echo',
  description: 'Echoes',
  input: z.object({ text: z.string() }),
  execute: ({ text }) => text,
});
const make = async (dashboard) => {
  const host = await createHost({
    builtins: false,
    pluginsDir: false,
    configFile: false,
    customTools: [echo],
  });
  const served = await serveHttp(host, {
    auth: { allowUnauthenticated: true },
    ...(dashboard ? { dashboard: {} } : {}),
  });
  return { host, served, session: host.session() };
};
const plain = await make(false);
const idle = await make(true);
const watched = await make(true);
// The page's stream, with the run's token (dashboardUrl carries it), as the page opens it.
await new Promise((resolve, reject) => {
  request(watched.served.dashboardUrl.replace('/?', '/api/events?'), (res) => {
    res.resume();
    if (res.statusCode === 200) resolve();
    else reject(new Error(`/api/events answered ${res.statusCode}`));
  }).end();
});
const paths = { 'no dashboard': plain, 'dashboard, no page': idle, 'dashboard, page open': watched };
const times = Object.fromEntries(Object.keys(paths).map((k) => [k, 0]));
const run = async (s, n) => {
  for (let i = 0; i < n; i++) await s.call('echo', { text: 'hi' });
};
for (const p of Object.values(paths)) await run(p.session, 3000); // warm-up
for (let block = 0; block < 200; block++) {
  for (const [name, p] of Object.entries(paths)) {
    const t = performance.now();
    await run(p.session, 100);
    times[name] += performance.now() - t;
  }
}
for (const [name, ms] of Object.entries(times))
  console.log(`${name}: ${((ms / 20000) * 1000).toFixed(2)} µs/call`);
for (const p of Object.values(paths)) {
  await p.served.close();
  await p.host.close();
}
