import { type ParseArgsConfig, parseArgs } from 'node:util';

/** A wrong command line: reported as one line on stderr, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  readonly code = 'usage';
}

export function isUsageError(error: unknown): error is UsageError {
  return (error as { code?: unknown } | null)?.code === 'usage' && error instanceof Error;
}

/** Flags every command takes. */
export const COMMON_OPTIONS = {
  root: { type: 'string' },
  config: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies NonNullable<ParseArgsConfig['options']>;

/** Their help lines. */
export const COMMON_HELP: readonly (readonly [string, string])[] = [
  ['--root DIR', 'Project folder: DIR/toolhost.config.json and DIR/plugins/ (default: cwd)'],
  ['--config FILE', 'Config file (default: DIR/toolhost.config.json, optional)'],
  ['-h, --help', 'Show this help'],
];

/** The option name in a `node:util` parse error, e.g. `--bogus` from "Unknown option '--bogus'". */
function optionIn(message: string): string | undefined {
  return /'(-{1,2}[^' ]+)/.exec(message)?.[1];
}

/** A command's flags, as `node:util`'s `parseArgs` takes them. */
export type Options = NonNullable<ParseArgsConfig['options']>;
type Values<O extends Options> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O; strict: true; allowPositionals: true }>
>['values'];

/**
 * A command's flags and positionals: `parseArgs` in strict mode, with its errors turned into
 * one-line usage errors that name the command and point at its help, and exactly the positionals
 * `names` (else a usage error naming what is missing or extra).
 */
export function parseCommand<O extends Options>(
  command: string,
  argv: readonly string[],
  options: O,
  names: readonly string[] = [],
): { values: Values<O>; positionals: string[] } {
  const { values, positionals } = parseStrict(command, argv, options);
  return { values, positionals: exactly(command, positionals, names) };
}

function parseStrict<O extends Options>(command: string, argv: readonly string[], options: O) {
  try {
    return parseArgs({ args: [...argv], options, strict: true, allowPositionals: true });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const message = (error as Error).message;
    const option = optionIn(message);
    const hint = `(see toolhost ${command} --help)`;
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION')
      throw new UsageError(`unknown option ${option ?? message} ${hint}`);
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
      const missing = /argument missing/.test(message);
      throw new UsageError(
        missing && option !== undefined ? `${option} needs a value ${hint}` : `${message} ${hint}`,
      );
    }
    if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
      const extra = /Unexpected argument '([^']*)'/.exec(message)?.[1];
      throw new UsageError(`unexpected argument ${JSON.stringify(extra ?? '')} ${hint}`);
    }
    throw error;
  }
}

function exactly(command: string, given: readonly string[], names: readonly string[]): string[] {
  if (given.length < names.length) {
    throw new UsageError(`missing ${names.slice(given.length).join(' ')} (see toolhost ${command} --help)`);
  }
  if (given.length > names.length) {
    throw new UsageError(
      `unexpected argument ${JSON.stringify(given[names.length])} (see toolhost ${command} --help)`,
    );
  }
  return [...given];
}

/** A TCP port number from a flag: 0 (any free port) to 65535. */
export function portOf(flag: string, value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) {
    throw new UsageError(`${flag} must be a port number from 0 to 65535, not ${JSON.stringify(value)}`);
  }
  return port;
}

/** Whether `argv` asks for help before any `--`. */
export function wantsHelp(argv: readonly string[]): boolean {
  for (const arg of argv) {
    if (arg === '--') return false;
    if (arg === '--help' || arg === '-h') return true;
  }
  return false;
}
