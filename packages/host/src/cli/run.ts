import { messageOf } from '../util/errors.js';
import { isUsageError, type Options, parseCommand, wantsHelp } from './args.js';
import { FLAGS } from './flags.js';
import { type CommandName, HELP, renderHelp } from './help.js';
import { type Io, processIo, styleFor } from './io.js';
import { isRestart, restartWithFlag } from './restart.js';
import { EXIT } from './types.js';
import { version } from './version.js';
import { table } from './view.js';

type CommandRun = (argv: readonly string[], io: Io) => Promise<number>;

/** Each command is loaded when it runs, so `--help`, `--version` and typos stay fast. */
const COMMANDS = {
  dev: async () => (await import('./commands/dev.js')).dev,
  list: async () => (await import('./commands/list.js')).list,
  call: async () => (await import('./commands/call.js')).call,
  serve: async () => (await import('./commands/serve.js')).serve,
  new: async () => (await import('./commands/new.js')).scaffold,
  doctor: async () => (await import('./commands/doctor.js')).doctor,
  grant: async () => (await import('./commands/grant.js')).grant,
  'mcp-config': async () => (await import('./commands/mcp-config.js')).mcpConfig,
  token: async () => (await import('./commands/token.js')).token,
  audit: async () => (await import('./commands/audit.js')).audit,
} as const satisfies Record<CommandName, () => Promise<CommandRun>>;

function isCommand(name: string): name is CommandName {
  return Object.hasOwn(COMMANDS, name);
}

function mainHelp(): string {
  return [
    'Usage: toolhost <command> [options]',
    '',
    'toolhost gives an AI agent its tools: built-ins, sandboxed plugins, MCP servers.',
    '',
    'Commands:',
    ...table(Object.entries(HELP).map(([name, help]) => [name, help.summary])),
    '',
    'Every command takes --root DIR (default: cwd) and --config FILE.',
    'Run toolhost <command> --help for its options; toolhost --version for the version.',
    '',
  ].join('\n');
}

/** Runs one command line (without `node` and the script) and returns the exit code. Never throws. */
export async function run(argv: readonly string[], io: Io = processIo()): Promise<number> {
  const [name, ...rest] = argv;
  const fail = (message: string) => io.err.write(`${styleFor(io.err).red('toolhost:')} ${message}\n`);
  if (name === '--version' || name === '-v') {
    io.out.write(`${version}\n`);
    return EXIT.ok;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    io.out.write(mainHelp());
    return EXIT.ok;
  }
  if (name === undefined) {
    io.err.write(mainHelp());
    return EXIT.usage;
  }
  if (!isCommand(name)) {
    fail(
      name.startsWith('-')
        ? `unknown option ${name} (see toolhost --help)`
        : `unknown command ${JSON.stringify(name)} (see toolhost --help)`,
    );
    return EXIT.usage;
  }
  if (wantsHelp(rest)) {
    io.out.write(renderHelp(HELP[name]));
    return EXIT.ok;
  }
  try {
    // The line is checked before the command (and the host) loads: a typo is answered at once.
    const flags: { options: Options; positionals: readonly string[] } = FLAGS[name];
    parseCommand(name, rest, flags.options, flags.positionals);
    const command = await COMMANDS[name]();
    return await command(rest, io);
  } catch (error) {
    if (isUsageError(error)) {
      fail(`${name}: ${error.message}`);
      return EXIT.usage;
    }
    if (isRestart(error)) return restartWithFlag();
    // A ConfigError (checked by code, so this file need not load the config module): every issue.
    if ((error as { code?: unknown } | null)?.code === 'invalid-config') {
      fail((error as Error).message);
      return EXIT.failed;
    }
    fail(`${name}: ${messageOf(error)}`);
    return EXIT.failed;
  }
}
