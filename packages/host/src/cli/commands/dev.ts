import * as path from 'node:path';
import { resultText } from '../../core/wrap/results.js';
import type { ToolHost } from '../../host/host.js';
import { serveHttp } from '../../serve/http.js';
import type { McpHttpServer } from '../../serve/http-options.js';
import type { McpCallWatch, McpServeOptions } from '../../serve/server.js';
import { parseCommand, portOf } from '../args.js';
import { loud } from '../auth-line.js';
import { DEFAULT_DEV_PORT } from '../defaults.js';
import { planWarnings, warningLines } from '../findings.js';
import { FLAGS } from '../flags.js';
import { type Io, type Output, type Style, styleFor } from '../io.js';
import { openHost, resolveProject } from '../project.js';
import { serveUntilStopped } from '../running.js';
import { skillLines } from '../skills-view.js';
import { writeStallLine } from '../stall-line.js';
import { toolJailLine, toolJails, toolSubject } from '../tool-jails.js';
import { EXIT } from '../types.js';
import { version } from '../version.js';
import { clock, deferredOf, planLines, shownPath } from '../view.js';
import { wallsLine } from '../walls.js';

/**
 * Serves on `port` (default {@link DEFAULT_DEV_PORT}). A taken port is an error, not a quiet move
 * to the next one: an MCP client set up for this port would talk to whatever holds it.
 */
async function listen(
  host: ToolHost,
  port: number | undefined,
  watchCall: McpServeOptions['watchCall'],
  open: boolean,
  err: Output,
): Promise<McpHttpServer> {
  const chosen = port ?? DEFAULT_DEV_PORT;
  try {
    return await serveHttp(host, {
      port: chosen,
      version,
      watchCall,
      dashboard: {},
      ...(open ? { auth: { allowUnauthenticated: true } } : {}),
      onWriteStall: (stall) => err.write(writeStallLine(stall)),
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    throw new Error(
      `port ${chosen} is taken (another toolhost dev?): stop what holds it, pass --port N for another port, or --port 0 for any free one`,
    );
  }
}

/** The first line of a result's text, cut short: what went wrong, on the call's own line. */
function firstLine(text: string, max = 160): string {
  const line = (text.split('\n')[0] ?? '').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

/**
 * Prints each MCP call as it ends — `12:00:01 [a1b2c3d4] notes_add ok in 3 ms`, with the error's
 * first line when it failed — and each of its log lines as it comes.
 */
function callPrinter(output: Output, style: Style): NonNullable<McpServeOptions['watchCall']> {
  return ({ sessionId, tool }): McpCallWatch => {
    // Stamped when each line is written: a call may log long after it started.
    const who = () => `${style.dim(clock(new Date()))} ${style.dim(`[${sessionId.slice(0, 8)}]`)} ${tool}`;
    return {
      log: (level, message, data) => {
        const extra = data === undefined ? '' : ` ${JSON.stringify(data)}`;
        output.write(`${who()} ${style.dim(`[${level}]`)} ${message}${extra}\n`);
      },
      end: ({ status, durationMs, result }) => {
        const paint = status === 'ok' ? style.green : style.red;
        const why = status === 'ok' ? '' : `: ${firstLine(resultText(result))}`;
        output.write(`${who()} ${paint(status)} in ${Math.round(durationMs)} ms${why}\n`);
      },
    };
  };
}

export async function dev(argv: readonly string[], io: Io): Promise<number> {
  const { values } = parseCommand('dev', argv, FLAGS.dev.options);
  const open = values['allow-unauthenticated'] === true;
  const port = values.port === undefined ? undefined : portOf('--port', values.port);
  const project = await resolveProject(values);
  const host = await openHost(project, io, { watch: true });
  const style = styleFor(io.out);
  const config = shownPath(project.configFile);
  const warnings = () => planWarnings(host, config);
  await serveUntilStopped(
    host,
    io.out,
    async () => {
      io.out.write(
        `${[
          ...planLines(host.plan(), host.plugins, style, deferredOf(host)),
          ...skillLines(host.skills(), style),
          ...warningLines(warnings(), style),
        ].join('\n')}\n\n`,
      );
      const served = await listen(host, port, callPrinter(io.out, style), open, io.err);
      const plugins = path.relative(process.cwd(), path.join(project.root, 'plugins')) || 'plugins';
      io.out.write(
        `${style.bold('walls')} ${host.walls.jail.up ? wallsLine(host.walls) : style.yellow(wallsLine(host.walls))}\n` +
          toolJails(host)
            .map((jail) => {
              const line = `${toolSubject(jail.tool)}: ${toolJailLine(jail)}`;
              return `${style.bold('walls')} ${jail.kind === 'process' && !jail.jailed ? style.yellow(line) : line}\n`;
            })
            .join('') +
          `${style.bold('MCP')} ${style.cyan(served.url)} (streamable HTTP)\n` +
          (served.token === undefined
            ? `${style.bold('token')} ${style.red(loud(served.auth))}\n`
            : `${style.bold('token')} ${served.token} (send "Authorization: Bearer <token>"; toolhost mcp-config --url ${served.url} prints a client entry)\n`) +
          // With its per-run token: the dashboard's API answers only the page opened from this line.
          `${style.bold('dashboard')} ${style.cyan(served.dashboardUrl ?? '')}\n` +
          `watching ${plugins}${path.sep} and ${config}; Ctrl-C to stop\n`,
      );
      return served;
    },
    { warnings },
  );
  return EXIT.ok;
}
