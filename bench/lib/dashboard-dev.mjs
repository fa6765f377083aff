/** Starts `toolhost dev` and waits for its dashboard line, for the benches that drive the page. */
import { spawn } from 'node:child_process';

const URL_LINE = /dashboard ((http:\/\/127\.0\.0\.1:\d+)\/\?token=([A-Za-z0-9_-]+))\n/;

/**
 * Spawns `node CLI dev --port 0 ...args` and resolves with the child and the dashboard's
 * address, origin and token once printed (rejects after `waitMs`, or if dev exits first).
 */
export async function startDashboardDev(cli, args, { cwd, env, waitMs = 60_000 } = {}) {
  const dev = spawn(process.execPath, [cli, 'dev', '--port', '0', ...args], {
    ...(cwd === undefined ? {} : { cwd }),
    ...(env === undefined ? {} : { env }),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const [address, origin, token] = await new Promise((resolve, reject) => {
      let out = '';
      const timer = setTimeout(
        () => reject(new Error(`toolhost dev printed no URL in ${waitMs / 1000} s:\n${out}`)),
        waitMs,
      );
      dev.stdout.setEncoding('utf8').on('data', (chunk) => {
        out += chunk;
        const match = URL_LINE.exec(out);
        if (match) {
          clearTimeout(timer);
          resolve(match.slice(1));
        }
      });
      dev.once('exit', (code) => reject(new Error(`toolhost dev exited (${code}):\n${out}`)));
    });
    dev.stdout.resume();
    return { dev, address, origin, token };
  } catch (error) {
    dev.kill();
    throw error;
  }
}
