/** The isolate's `console`: each line formatted here, as Node would, and handed to `ctx.log`. */
import type { GlobalsHost } from './host.js';

/** A value as `console` prints it: strings as they are, the rest as JSON or its string form. */
export function show(value: unknown, depth = 0): string {
  if (typeof value === 'string') return depth === 0 ? value : JSON.stringify(value);
  if (value instanceof Error) return value.stack ?? `${value.name}: ${value.message}`;
  if (typeof value === 'function') return `[Function ${value.name || '(anonymous)'}]`;
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'symbol' || value === undefined || value === null) return String(value);
  if (typeof value !== 'object') return String(value);
  if (value instanceof Map) return `Map(${value.size}) ${show(Object.fromEntries(value), depth + 1)}`;
  if (value instanceof Set) return `Set(${value.size}) ${show([...value], depth + 1)}`;
  try {
    const seen = new Set<unknown>();
    return (
      JSON.stringify(value, (_key, v: unknown) => {
        if (typeof v === 'bigint') return `${v}n`;
        if (typeof v === 'object' && v !== null) {
          if (seen.has(v)) return '[Circular]';
          seen.add(v);
        }
        return v;
      }) ?? String(value)
    );
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/** `console.log('%s is %d', a, b)` substitutions, then the remaining arguments joined by spaces. */
function format(args: readonly unknown[]): string {
  if (args.length === 0) return '';
  const [first, ...rest] = args;
  let text: string;
  if (typeof first === 'string' && /%[sdifjoOc%]/.test(first)) {
    text = first.replace(/%([sdifjoOc%])/g, (whole, kind: string) => {
      if (kind === '%') return '%';
      if (rest.length === 0) return whole;
      const value = rest.shift();
      switch (kind) {
        case 's':
          return typeof value === 'string' ? value : show(value, 1);
        case 'd':
        case 'i':
          return String(kind === 'i' ? Math.trunc(Number(value)) : Number(value));
        case 'f':
          return String(Number(value));
        case 'c':
          return '';
        default:
          return show(value, 1);
      }
    });
  } else text = show(first);
  for (const value of rest) text += ` ${show(value)}`;
  return text;
}

export function makeConsole(host: GlobalsHost) {
  const line =
    (level: string) =>
    (...args: unknown[]) => {
      const callId = host.currentCall();
      // Over its caps, a call's line is not even formatted.
      if (callId !== undefined && !host.logRoom(callId)) return;
      host.log(callId, level, format(args));
    };
  const counts = new Map<string, number>();
  const started = new Map<string, number>();
  const info = line('info');
  return {
    log: info,
    info,
    debug: line('debug'),
    trace: line('debug'),
    warn: line('warn'),
    error: line('error'),
    dir: (value: unknown) => info(value),
    table: (value: unknown) => info(value),
    assert: (condition: unknown, ...args: unknown[]) => {
      if (!condition) line('error')('Assertion failed', ...args);
    },
    count: (label = 'default') => {
      const n = (counts.get(label) ?? 0) + 1;
      counts.set(label, n);
      info(`${label}: ${n}`);
    },
    countReset: (label = 'default') => counts.delete(label),
    time: (label = 'default') => started.set(label, Date.now()),
    timeLog: (label = 'default', ...args: unknown[]) => {
      const t = started.get(label);
      if (t !== undefined) info(`${label}: ${Date.now() - t}ms`, ...args);
    },
    timeEnd: (label = 'default') => {
      const t = started.get(label);
      started.delete(label);
      if (t !== undefined) info(`${label}: ${Date.now() - t}ms`);
    },
    group: (...args: unknown[]) => (args.length > 0 ? info(...args) : undefined),
    groupCollapsed: (...args: unknown[]) => (args.length > 0 ? info(...args) : undefined),
    groupEnd: () => {},
  };
}
