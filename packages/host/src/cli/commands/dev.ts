import * as path from 'node:path';
import type { ToolHost } from '../../host/host.js';
import { type McpHttpServer, serveHttp } from '../../serve/http.js';
import { COMMON_OPTIONS, parseCommand, portOf } from '../args.js';
import { DEFAULT_DEV_PORT } from '../defaults.js';
import { type Io, styleFor } from '../io.js';
import { openHost, resolveProject } from '../project.js';
import { serveUntilStopped } from '../running.js';
import { EXIT } from '../types.js';
import { version } from '../version.js';
import { planLines, shownPath } from '../view.js';

const PORT_ATTEMPTS = 10;

/** Serves on `port`, or with no port given on the first free one from the default. */
async function listen(host: ToolHost, port: number | undefined): Promise<McpHttpServer> {
  if (port !== undefined) return serveHttp(host, { port, version });
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await serveHttp(host, { port: DEFAULT_DEV_PORT + attempt, version });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt + 1 >= PORT_ATTEMPTS) throw error;
    }
  }
}

export async function dev(argv: readonly string[], io: Io): Promise<number> {
  const { values } = parseCommand('dev', argv, { ...COMMON_OPTIONS, port: { type: 'string' } });
  const port = values.port === undefined ? undefined : portOf('--port', values.port);
  const project = await resolveProject(values);
  const host = await openHost(project, io, { watch: true });
  const style = styleFor(io.out);
  await serveUntilStopped(host, io.out, async () => {
    io.out.write(`${planLines(host.plan(), host.plugins, style).join('\n')}\n\n`);
    const served = await listen(host, port);
    const config = shownPath(project.configFile);
    const plugins = path.relative(process.cwd(), path.join(project.root, 'plugins')) || 'plugins';
    io.out.write(
      `${style.bold('MCP')} ${style.cyan(served.url)} (streamable HTTP)\n` +
        `watching ${plugins}${path.sep} and ${config}; Ctrl-C to stop\n`,
    );
    return served;
  });
  return EXIT.ok;
}
