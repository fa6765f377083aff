import { COMMON_HELP } from './args.js';
import { DEFAULT_DEV_PORT } from './defaults.js';
import { table } from './view.js';

/** What `toolhost <command> --help` prints. */
export interface CommandHelp {
  /** `toolhost call NAME [options]`. */
  readonly usage: string;
  /** One line, also shown by `toolhost --help`. */
  readonly summary: string;
  /** Lines after the summary: what it does, exit codes, examples. */
  readonly details?: readonly string[];
  /** The command's own flags; the common ones are added. */
  readonly options: readonly (readonly [string, string])[];
}

export function renderHelp(help: CommandHelp): string {
  return [
    `Usage: ${help.usage}`,
    '',
    help.summary,
    ...(help.details === undefined ? [] : ['', ...help.details]),
    '',
    'Options:',
    ...table([...help.options, ...COMMON_HELP]),
    '',
  ].join('\n');
}

/** The commands, in the order `toolhost --help` lists them. */
export type CommandName =
  | 'dev'
  | 'list'
  | 'call'
  | 'serve'
  | 'new'
  | 'doctor'
  | 'grant'
  | 'mcp-config'
  | 'token'
  | 'audit';

/** Help of every command; kept apart from the commands so `--help` loads none of them. */
export const HELP = {
  dev: {
    usage: 'toolhost dev [--port PORT] [--allow-unauthenticated] [--root DIR] [--config FILE]',
    summary:
      'Loads the project, prints the plan, serves it over MCP streamable HTTP and rebuilds on every change.',
    details: [
      `Serves http://127.0.0.1:PORT/mcp (default port ${DEFAULT_DEV_PORT}; a taken port is an error),`,
      "which takes the project's bearer token (printed on start; toolhost token shows it).",
      'Every save under plugins/ or of the config prints what changed and how long the rebuild took,',
      'each build error as it changes, and the warnings (missing grants, patterns that match nothing).',
      "Every call made over MCP prints a line (session, tool, status, duration) and the tool's log lines.",
    ],
    options: [
      ['--port PORT', `Port to serve on (default ${DEFAULT_DEV_PORT}; 0: any free port)`],
      [
        '--allow-unauthenticated',
        'Serve /mcp without a bearer token (any local process may call every tool)',
      ],
    ],
  },
  list: {
    usage: 'toolhost list [--json] [--root DIR] [--config FILE]',
    summary: 'Loads the project once and prints its plan: visible tools, hidden ones with why, plugins.',
    details: [
      'With --json, prints one object: {"visible": [{name, description, owner, executor, inputSchema}],',
      '"hidden": [{name, owner, diagnostics: [{reason, message}]}], "plugins": [{id, status, diagnostics}]}',
      'on stdout, and the warnings on stderr.',
    ],
    options: [['--json', 'Print the plan as one JSON object']],
  },
  call: {
    usage:
      'toolhost call NAME [--input JSON | --input-file FILE|-] [--json] [--yes | --yes-all] [--url URL [--token TOKEN]] [--root DIR] [--config FILE]',
    summary: 'Calls one tool through the full wrapper (validation, hooks, limits) and prints its result.',
    details: [
      "Prints the text of the result on stdout, and the tool's log lines on stderr. With --json, prints",
      'the result as {"content": [...], "isError": bool, "structuredContent"?: {...}}.',
      'Exit code 0 for a result, 1 for an isError result, 2 for a usage error.',
      'A call needing approval (tools.approve, requireApproval, a hook) asks on a terminal',
      '(y = once, a = always, N = no); elsewhere it is refused unless --yes approves it.',
      "--yes approves only NAME's own call: the calls NAME makes in turn (a run_code script's, a",
      "skill's) are asked or refused in the same way unless --yes-all.",
      '',
      'Example: toolhost call text_stats --input \'{"text": "hello world"}\'',
    ],
    options: [
      ['--input JSON', 'The input object (default {})'],
      ['--input-file FILE', 'Read the input object from FILE (- for stdin)'],
      ['--json', 'Print the result as JSON'],
      ['-y, --yes', 'Approve (once) the approvals the call of NAME itself asks for'],
      ['--yes-all', 'Approve (once) every approval, the calls NAME makes included'],
      ['--url URL', 'Call a running server (toolhost dev, serve --http), e.g. http://127.0.0.1:7337/mcp'],
      [
        '--token TOKEN',
        "With --url: the bearer token (default $TOOLHOST_TOKEN, else the --root project's default token)",
      ],
    ],
  },
  serve: {
    usage:
      'toolhost serve [--http PORT] [--host HOST] [--allow-unauthenticated] [--no-watch] [--sandbox inline|process] [--root DIR] [--config FILE]',
    summary: 'Serves the project over MCP: stdio by default, streamable HTTP on 127.0.0.1 with --http.',
    details: [
      "Over HTTP every request needs a bearer token: one of the project's (toolhost token) or, with",
      'serve.auth.oauth, an access token issued for this server. A missing or wrong one gets 401.',
      'In stdio mode stdout carries the protocol only; every log line goes to stderr.',
      'Watches plugins/ and the config file unless --no-watch; clients get tools/list_changed.',
      'Plugin isolates run in an executor process, jailed where the system allows (config sandbox.jail),',
      'over stdio as over HTTP. With --sandbox inline they run in the serve process itself (one wall:',
      'the isolate), under a supervisor that restarts it when a plugin makes V8 abort.',
    ],
    options: [
      ['--http PORT', 'Serve streamable HTTP at http://127.0.0.1:PORT/mcp (0: any free port)'],
      ['--host HOST', 'Address to listen on with --http (default 127.0.0.1)'],
      [
        '--allow-unauthenticated',
        'With --http on a loopback address only: no token, any local process may call every tool',
      ],
      ['--no-watch', 'Do not rebuild on changes'],
      [
        '--sandbox MODE',
        "process (default): in a jailed executor process; inline: in the serve process itself, supervised (config 'sandbox' too)",
      ],
    ],
  },
  new: {
    usage: 'toolhost new NAME [--root DIR]',
    summary: 'Scaffolds plugins/NAME/ with a typed example tool (NAME_hello) and its test.',
    details: [
      'NAME is the plugin id: lower-case letters, digits, "_" and "-", starting with a letter or digit.',
      'An existing folder is never overwritten.',
    ],
    options: [],
  },
  doctor: {
    usage: 'toolhost doctor [--root DIR] [--config FILE]',
    summary: 'Checks the config, plugin builds, permission grants and MCP servers; says what to fix.',
    details: [
      'Builds every plugin without the cache, compares the permissions each asks for with the grants',
      'config gives, and checks each server under mcpServers. Exit code 0 only when all is well;',
      'warnings (hidden tools, unused settings) do not fail it.',
    ],
    options: [],
  },
  grant: {
    usage: 'toolhost grant PLUGIN|SERVER|exec [--yes] [--root DIR] [--config FILE]',
    summary:
      'Writes the grants doctor finds missing for PLUGIN into the config file, showing the diff first.',
    details: [
      'For an MCP SERVER or exec: writes the paths and hosts its jail refused lately, at the keys doctor names.',
      "Keeps the file's key order, indentation and final newline; refuses a file that is not valid JSON.",
      'On a terminal it asks before writing; elsewhere it prints the diff and exits 1 unless --yes.',
    ],
    options: [['-y, --yes', 'Write without asking']],
  },
  'mcp-config': {
    usage: 'toolhost mcp-config [--name NAME] [--url URL] [--json] [--root DIR] [--config FILE]',
    summary: 'Prints how Claude Desktop, Claude Code or any MCP client starts this project over stdio.',
    details: [
      'Prints an "mcpServers" entry and a "claude mcp add" line with absolute paths: this Node, this',
      "checkout's toolhost and the project root, so they work from any folder and never fetch a package.",
      "With --url, the entry of a running HTTP server instead, with the project's default token.",
    ],
    options: [
      ['--name NAME', 'Server name in the client (default toolhost)'],
      ['--url URL', 'A running serve --http or dev endpoint, e.g. http://127.0.0.1:7337/mcp'],
      ['--json', 'Print only the {"mcpServers": {...}} object'],
    ],
  },
  token: {
    usage: 'toolhost token [--rotate NAME | --remove NAME] [--json] [--root DIR]',
    summary: "Prints the project's bearer tokens for serve --http and dev; rotates or removes one.",
    details: [
      'Tokens live in .toolhost/serve-tokens.json (mode 0600); the default one is made on first use.',
      'A token named NAME authenticates the caller as token:NAME (what principals match).',
      'Running servers honour a rotation or removal from their next request on.',
    ],
    options: [
      ['--rotate NAME', 'Give NAME a new token (adds NAME when it is new) and print it'],
      ['--remove NAME', "Remove NAME's token"],
      ['--json', 'Print JSON'],
    ],
  },
  audit: {
    usage:
      'toolhost audit [--principal P] [--tool T] [--status S] [--type call|approval] [--since TIME] [--limit N] [--follow] [--json] [--root DIR]',
    summary: "Shows the project's audit trail: who called which tool, with what outcome, and each approval.",
    details: [
      'Reads every file of .toolhost/audit/ (config audit.dir), rotated ones too, merged in time order.',
      'Prints the last N records that pass the filters (default 50); --follow then prints each new one.',
      'Records hold inputs redacted (credential-like keys, granted secrets), never results.',
    ],
    options: [
      ['--principal P', 'Only this caller (token:NAME, oauth:SUBJECT, anonymous)'],
      ['--tool T', 'Only this tool'],
      ['--status S', 'Only this status (ok, tool-error, refused, rate-limited, …)'],
      ['--type T', 'call or approval'],
      ['--since TIME', 'Only records at or after TIME (ISO 8601)'],
      ['--limit N', 'How many of the last records (default 50)'],
      ['-f, --follow', 'Keep printing new records until interrupted'],
      ['--json', 'Print the records as JSON lines'],
    ],
  },
} as const satisfies Record<CommandName, CommandHelp>;
