import { readFile } from 'node:fs/promises';
import { resultText } from '../../core/wrap/results.js';
import type { CallObserver } from '../../core/wrap/wrapper.js';
import { COMMON_OPTIONS, parseCommand, UsageError } from '../args.js';
import { type Io, styleFor } from '../io.js';
import { openHost, resolveProject } from '../project.js';
import { type CallJson, EXIT } from '../types.js';

function parseInput(text: string, source: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${source} is not valid JSON: ${(error as Error).message.split('\n')[0]}`);
  }
}

async function inputOf(values: { input?: string; 'input-file'?: string }): Promise<unknown> {
  const file = values['input-file'];
  if (values.input !== undefined && file !== undefined) {
    throw new UsageError('give --input or --input-file, not both');
  }
  if (values.input !== undefined) return parseInput(values.input, '--input');
  if (file === undefined) return {};
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(
      `--input-file ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`,
    );
  }
  return parseInput(text, `--input-file ${file}`);
}

export async function call(argv: readonly string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommand(
    'call',
    argv,
    {
      ...COMMON_OPTIONS,
      input: { type: 'string' },
      'input-file': { type: 'string' },
      json: { type: 'boolean' },
    },
    ['NAME'],
  );
  const [name = ''] = positionals;
  const input = await inputOf(values);
  const project = await resolveProject(values);
  const host = await openHost(project, io);
  try {
    const style = styleFor(io.err);
    // The tool's ctx.log lines go to stderr, so stdout stays the result alone.
    const observer: CallObserver = {
      log: (level, message, data) =>
        io.err.write(
          `${style.dim(`[${level}]`)} ${message}${data === undefined ? '' : ` ${JSON.stringify(data)}`}\n`,
        ),
    };
    const { result } = await host.session().call(name, input, undefined, { observer });
    const isError = result.isError === true;
    if (values.json === true) {
      const json: CallJson = {
        content: result.content,
        isError,
        ...(result.structuredContent === undefined ? {} : { structuredContent: result.structuredContent }),
      };
      io.out.write(`${JSON.stringify(json)}\n`);
    } else {
      const text = resultText(result);
      // An error result is the tool's answer, not the CLI's: stdout, so it can be piped like any other.
      io.out.write(text.endsWith('\n') || text === '' ? text : `${text}\n`);
    }
    return isError ? EXIT.failed : EXIT.ok;
  } finally {
    await host.close();
  }
}
