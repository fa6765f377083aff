/**
 * Runs inside a process tool's jail when it has `net` grants: offers the network gate's two
 * proxies (Unix sockets bound into the jail) on the jail's own loopback, where `HTTP_PROXY` and
 * `ALL_PROXY` point, then runs the tool's command and ends as it ends. It only copies bytes
 * between a loopback connection and a socket; every decision is the gate's, outside the jail, so
 * a process that kills or bypasses the relay reaches nothing (its namespace has no other route).
 *
 * `node relay-main.js <socket folder> <http port> <socks port> -- <command> [args…]`
 */
import { spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';
import * as path from 'node:path';

const [dir = '', httpPort = '', socksPort = '', dashes, command, ...args] = process.argv.slice(2);
if (dashes !== '--' || command === undefined) {
  process.stderr.write(
    'toolhost relay: usage: relay-main <dir> <http port> <socks port> -- <command> [args]\n',
  );
  process.exit(2);
}

function relay(port: number, socket: string): Promise<void> {
  const server = createServer((client) => {
    const upstream = connect(socket);
    client.pipe(upstream).pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end);
    upstream.on('error', end);
    client.on('close', end);
    upstream.on('close', end);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host: '127.0.0.1' }, () => resolve());
  });
}

await Promise.all([
  relay(Number(httpPort), path.join(dir, 'http.sock')),
  relay(Number(socksPort), path.join(dir, 'socks.sock')),
]);
const child = spawn(command, args, { stdio: 'inherit' });
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
  process.on(signal, () => child.kill(signal));
}
child.on('error', (error: NodeJS.ErrnoException) => {
  process.stderr.write(`toolhost jail: cannot run ${command}: ${error.code ?? error.message}\n`);
  process.exit(error.code === 'ENOENT' ? 127 : 126);
});
child.on('exit', (code, signal) => {
  if (signal !== null) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  }
  process.exit(code ?? 1);
});
