import { realpath } from 'node:fs/promises';
import * as path from 'node:path';
import { DEFAULT_TOKEN_NAME, projectTokens, TOKENS_FILE } from '../../serve/auth/tokens.js';
import { isDirectory, isFile } from '../../util/stat.js';
import { parseCommand, UsageError } from '../args.js';
import { FLAGS } from '../flags.js';
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

/** How an MCP client reaches a running HTTP server (`--url`): the address and the token it sends. */
export interface McpHttpEntry {
  readonly type: 'http';
  readonly url: string;
  readonly headers: { readonly Authorization: string };
}

/** What `toolhost mcp-config --json` prints. */
export interface McpConfigJson {
  readonly mcpServers: Readonly<Record<string, McpServerEntry | McpHttpEntry>>;
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
  const { values } = parseCommand('mcp-config', argv, FLAGS['mcp-config'].options);
  const name = values.name ?? 'toolhost';
  if (!SERVER_NAME.test(name)) {
    throw new UsageError(`--name must be 1-64 letters, digits, "_" or "-", not ${JSON.stringify(name)}`);
  }
  const project = await resolveProject(values, { forHost: false });
  if (values.url !== undefined) return httpEntry(name, values.url, project.root, values.json === true, io);
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

/**
 * `mcp-config --url`: the entry of a running `serve --http` or `dev` server of this project, with
 * the project's `default` bearer token in its `Authorization` header (made when there is none
 * yet: the server reads the file on its next request). The token is a password: the printed
 * entry belongs in the client's own config, not in a shared file.
 */
async function httpEntry(name: string, url: string, root: string, json: boolean, io: Io): Promise<number> {
  let target: URL;
  try {
    target = new URL(url);
    if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new Error('not http');
  } catch {
    throw new UsageError(
      `--url must be an http(s) URL such as http://127.0.0.1:7337/mcp, not ${JSON.stringify(url)}`,
    );
  }
  const tokens = await projectTokens(root);
  const token = tokens.find((t) => t.name === DEFAULT_TOKEN_NAME) ?? tokens[0];
  if (token === undefined) throw new Error(`no token in ${TOKENS_FILE}`);
  const entry: McpHttpEntry = {
    type: 'http',
    url: target.href,
    headers: { Authorization: `Bearer ${token.token}` },
  };
  const config: McpConfigJson = { mcpServers: { [name]: entry } };
  const text = JSON.stringify(config, null, 2);
  if (json) {
    io.out.write(`${text}\n`);
    return EXIT.ok;
  }
  const claude = [
    'claude',
    'mcp',
    'add',
    '--transport',
    'http',
    name,
    target.href,
    '--header',
    `Authorization: Bearer ${token.token}`,
  ]
    .map(shellWord)
    .join(' ');
  io.out.write(
    [
      `An MCP client that speaks streamable HTTP: merge this into its config (token "${token.name}" of ${TOKENS_FILE}):`,
      '',
      text,
      '',
      'Claude Code:',
      '',
      claude,
      '',
      'The token is a password: keep it out of shared files. toolhost token --rotate default replaces it.',
      '',
    ].join('\n'),
  );
  return EXIT.ok;
}
