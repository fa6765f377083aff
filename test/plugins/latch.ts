import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Counts events: `bump()` one, `reached(n)` resolves once n have happened. */
export function counter() {
  let seen = 0;
  const waiters: { n: number; resolve: () => void }[] = [];
  return {
    bump() {
      seen += 1;
      for (const w of [...waiters])
        if (seen >= w.n) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
    },
    reached(n: number): Promise<void> {
      if (seen >= n) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ n, resolve }));
    },
  };
}

/**
 * A local HTTP server plugins fetch from. `/echo/<text>` answers `<text>` at once; any other path
 * is held until the test opens the latch (then answers `released`), so a plugin call stays in
 * flight exactly as long as the test wants.
 */
export async function latchServer() {
  const held: ServerResponse[] = [];
  const arrived = counter();
  let open = false;
  const server: Server = createServer((req, res) => {
    if (req.url?.startsWith('/echo/') === true) {
      res.end(decodeURIComponent(req.url.slice('/echo/'.length)));
      return;
    }
    if (open) {
      res.end('released');
      return;
    }
    held.push(res);
    arrived.bump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    arrived,
    open() {
      open = true;
      for (const res of held.splice(0)) res.end('released');
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
