import { serveHttp } from '../../serve/http.js';
import { serveStdio } from '../../serve/stdio.js';
import { COMMON_OPTIONS, parseCommand, portOf } from '../args.js';
import type { Io } from '../io.js';
import { openHost, resolveProject } from '../project.js';
import { serveUntilStopped } from '../running.js';
import { EXIT } from '../types.js';
import { version } from '../version.js';

export async function serve(argv: readonly string[], io: Io): Promise<number> {
  const { values } = parseCommand('serve', argv, {
    ...COMMON_OPTIONS,
    http: { type: 'string' },
    'no-watch': { type: 'boolean' },
  });
  const port = values.http === undefined ? undefined : portOf('--http', values.http);
  const watch = values['no-watch'] !== true;
  const project = await resolveProject(values);
  const host = await openHost(project, io, { watch });
  const tools = host.plan().visible.length;
  const watching = watch ? 'watching for changes' : 'not watching';
  await serveUntilStopped(host, io.err, async () => {
    if (port !== undefined) {
      const served = await serveHttp(host, { port, version });
      io.err.write(
        `toolhost: serving ${tools} tools over MCP streamable HTTP at ${served.url} (${watching})\n`,
      );
      return served;
    }
    const served = await serveStdio(host, { version });
    io.err.write(`toolhost: serving ${tools} tools over MCP stdio (${watching})\n`);
    // The client closing stdin ends the session, as a signal does.
    const stdinEnded = new Promise<void>((resolve) => {
      process.stdin.once('end', resolve);
      process.stdin.once('close', resolve);
    });
    return { close: served.close, stopped: Promise.race([served.closed, stdinEnded]) };
  });
  return EXIT.ok;
}
