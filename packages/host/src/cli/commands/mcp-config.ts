import { realpath } from 'node:fs/promises';
import * as path from 'node:path';
import { isDirectory, isFile } from '../../util/stat.js';
import { COMMON_OPTIONS, parseCommand, UsageError } from '../args.js';
import { BIN, shellWord } from '../invocation.js';
import type { Io } from '../io.js';
import { resolveProject } from '../project.js';
import { SNAPSHOT_FLAG } from '../restart.js';
import { EXIT } from '../types.js';

/** How an MCP client starts this checkout's server: one entry of a client's `mcpServers`. */
export interface McpServerEntry {
  /** The absolute path of the Node that runs this command now. */
  readonly command: string;
  /** `--no-node-snapshot`, this checkout's bin (absolute), `serve --root DIR` (absolute). */
  readonly args: readonly string[];
}

/** What `toolhost mcp-config --json` prints. */
export interface McpConfigJson {
  readonly mcpServers: Readonly<Record<string, McpServerEntry>>;
}

/** MCP clients take server names of letters, digits, `_` and `-` (Claude Code's rule). */
const SERVER_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** This package's bin, real path. */
async function binPath(): Promise<string> {
  if (!(await isFile(BIN))) throw new Error(`cannot find the toolhost bin at ${BIN}`);
  return realpath(BIN);
}

/**
 * `toolhost mcp-config`: prints how an MCP client (Claude Desktop, Claude Code, Cursor…) starts
 * this checkout's server over stdio. Everything is absolute — the Node running now, this
 * package's bin, the project root — because a client starts servers from a folder of its own,
 * where `npx toolhost` would look the name up in the public registry and run whatever it finds.
 * `--no-node-snapshot` is passed so that `sandbox: 'inline'` needs no restart.
 */
export async function mcpConfig(argv: readonly string[], io: Io): Promise<number> {
  const { values } = parseCommand('mcp-config', argv, {
    ...COMMON_OPTIONS,
    name: { type: 'string' },
    json: { type: 'boolean' },
  });
  const name = values.name ?? 'toolhost';
  if (!SERVER_NAME.test(name)) {
    throw new UsageError(`--name must be 1-64 letters, digits, "_" or "-", not ${JSON.stringify(name)}`);
  }
  const project = await resolveProject(values, { forHost: false });
  const root = await realpath(project.root);
  const args = [
    SNAPSHOT_FLAG,
    await binPath(),
    'serve',
    '--root',
    root,
    ...(project.configGiven ? ['--config', await realpath(project.configFile)] : []),
  ];
  const config: McpConfigJson = { mcpServers: { [name]: { command: process.execPath, args } } };
  const json = JSON.stringify(config, null, 2);
  if (
    !project.configGiven &&
    !(await isFile(project.configFile)) &&
    !(await isDirectory(path.join(root, 'plugins')))
  ) {
    io.err.write(
      `toolhost: note: ${root} has no toolhost.config.json and no plugins/ folder; pass --root with the project folder\n`,
    );
  }
  if (values.json === true) {
    io.out.write(`${json}\n`);
    return EXIT.ok;
  }
  const claude = ['claude', 'mcp', 'add', name, '--', process.execPath, ...args].map(shellWord).join(' ');
  io.out.write(
    [
      'Claude Desktop, Cursor, or any MCP client that starts its servers: merge this into its config',
      '(Claude Desktop: Settings > Developer > Edit Config, then restart it):',
      '',
      json,
      '',
      'Claude Code:',
      '',
      claude,
      '',
      `Both run this checkout's toolhost with this Node (${process.version}), whatever folder the client starts in.`,
      '',
    ].join('\n'),
  );
  return EXIT.ok;
}
