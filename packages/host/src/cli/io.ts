/**
 * Where the CLI writes, and how. Colour only on a terminal and never with `NO_COLOR` set
 * (https://no-color.org); the progress line only on a terminal. Whatever is written has its
 * control characters shown escaped, on a terminal or not (terminal.ts): only the CLI's own
 * colours and progress line are sequences.
 */
import { OWN_ERASE_LINE, ownSgr, terminalText } from './terminal.js';

/** One output stream, with what it supports. */
export interface Output {
  /** Writes `text` with every control character escaped but the CLI's own (see terminal.ts). */
  write(text: string): void;
  /** A terminal: progress lines may be redrawn in place. */
  readonly tty: boolean;
  /** ANSI colours are welcome. */
  readonly color: boolean;
}

export interface Io {
  readonly out: Output;
  readonly err: Output;
}

/** `NO_COLOR` counts when present and not empty. */
function colorAllowed(env: NodeJS.ProcessEnv): boolean {
  return env.NO_COLOR === undefined || env.NO_COLOR === '';
}

/**
 * An output over a stream: a terminal when it says so; colour there unless `NO_COLOR` is set.
 * A pipe or a file is escaped as a terminal is: it is often shown on one (`| less -R`, `cat`).
 */
export function outputFor(
  stream: Pick<NodeJS.WriteStream, 'write'> & { readonly isTTY?: boolean },
  env: NodeJS.ProcessEnv,
): Output {
  const tty = stream.isTTY === true;
  return { write: (text) => void stream.write(terminalText(text)), tty, color: tty && colorAllowed(env) };
}

export function processIo(env: NodeJS.ProcessEnv = process.env): Io {
  return { out: outputFor(process.stdout, env), err: outputFor(process.stderr, env) };
}

export interface Style {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

const ansi = (open: number, close: number) => (text: string) => `${ownSgr(open)}${text}${ownSgr(close)}`;
const plain = (text: string) => text;

/** Colour functions for one output: identities when it takes no colour. */
export function styleFor(output: Output): Style {
  if (!output.color) return { bold: plain, dim: plain, red: plain, green: plain, yellow: plain, cyan: plain };
  return {
    bold: ansi(1, 22),
    dim: ansi(2, 22),
    red: ansi(31, 39),
    green: ansi(32, 39),
    yellow: ansi(33, 39),
    cyan: ansi(36, 39),
  };
}

export interface Progress {
  /** Replaces the text after the spinner. */
  update(text: string): void;
  /** Erases the line. */
  stop(): void;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/**
 * A spinner with a text and the seconds elapsed, redrawn on one line of a terminal; nothing at all
 * when the output is not a terminal (a log file or a pipe gets no control characters).
 */
export function startProgress(output: Output, text: string): Progress {
  if (!output.tty) return { update() {}, stop() {} };
  const started = performance.now();
  let frame = 0;
  let current = text;
  const draw = () => {
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    output.write(`${OWN_ERASE_LINE}${FRAMES[frame % FRAMES.length] ?? ''} ${current} ${seconds}s`);
    frame += 1;
  };
  draw();
  const timer = setInterval(draw, 80);
  timer.unref();
  return {
    update(next) {
      current = next;
    },
    stop() {
      clearInterval(timer);
      output.write(OWN_ERASE_LINE);
    },
  };
}
