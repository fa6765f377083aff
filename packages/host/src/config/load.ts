import { readFile } from 'node:fs/promises';
import * as z from 'zod';
import { closestName } from '../util/closest.js';
import { issuePath } from '../util/zod-issues.js';
import { jsonErrorOffset } from './json-position.js';
import { configSchema, type ToolhostConfig } from './schema.js';

/** One problem in a config file: where, and what. */
export interface ConfigIssue {
  readonly file: string;
  /** Dotted path into the JSON, `(root)` for the whole file. */
  readonly path: string;
  readonly message: string;
}

/** A validated config (`found`: false when the file does not exist and defaults apply), or every problem. */
export type ConfigOutcome =
  | { readonly ok: true; readonly config: ToolhostConfig; readonly found: boolean }
  | { readonly ok: false; readonly issues: readonly ConfigIssue[] };

/** Thrown at start when the config is invalid: the host refuses to start. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly code = 'invalid-config';
  readonly issues: readonly ConfigIssue[];

  constructor(issues: readonly ConfigIssue[]) {
    super(`invalid config:\n${formatConfigIssues(issues)}`);
    this.issues = issues;
  }
}

export function formatConfigIssues(issues: readonly ConfigIssue[]): string {
  return issues.map((i) => `  ${i.file}: ${i.path}: ${i.message}`).join('\n');
}

/** `line L, column C` of a character offset, for JSON syntax errors. */
function position(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
}

/**
 * Validates a parsed config value. `file` names where it came from in each issue (a path, or
 * `createHost options` for one given in code).
 */
export function parseConfig(value: unknown, file: string): ConfigOutcome {
  const parsed = configSchema.safeParse(value);
  if (parsed.success) return { ok: true, config: parsed.data, found: true };
  return { ok: false, issues: flatten(parsed.error.issues, []).map((issue) => ({ file, ...issue })) };
}

/**
 * Issues as `path: message`. A failed union (`builtins` is a boolean or an object) says only
 * "Invalid input"; the option the value was meant for — the one that did not fail on its type at
 * the top — has the useful issues, so those are reported under the union's path.
 */
function flatten(
  issues: readonly z.core.$ZodIssue[],
  prefix: readonly PropertyKey[],
): { path: string; message: string }[] {
  return issues.flatMap((issue) => {
    const at = [...prefix, ...issue.path];
    if (issue.code === 'invalid_union') {
      let meant = issue.errors.filter(
        (option) => !option.every((i) => i.code === 'invalid_type' && i.path.length === 0),
      );
      // `{ "mode": "process", "jail": "x" }` also fails the string form (`invalid_value`): the
      // option that got inside the value is the one meant.
      if (meant.length > 1) meant = meant.filter((option) => option.some(reachedInside));
      if (meant.length === 1) return flatten(meant[0] as z.core.$ZodIssue[], at);
      const expected = issue.errors.flatMap((option) =>
        option.flatMap((i) => (i.code === 'invalid_type' && i.path.length === 0 ? [i.expected] : [])),
      );
      const message = expected.length > 0 ? `expected ${[...new Set(expected)].join(' or ')}` : issue.message;
      return [{ path: issuePath(at), message }];
    }
    const message = issue.code === 'unrecognized_keys' ? unknownKeysMessage(at, issue.keys) : issue.message;
    return [{ path: issuePath(at), message }];
  });
}

/** An issue found inside the value (under it, or about its keys), not about what the value is. */
function reachedInside(issue: { readonly code: string; readonly path: readonly PropertyKey[] }): boolean {
  return issue.path.length > 0 || (issue.code !== 'invalid_type' && issue.code !== 'invalid_value');
}

/** Keys people write for another key of the config, by dotted path. */
const MEANT: Readonly<Record<string, string>> = {
  policy: 'tools',
  allow: 'tools.allow',
  deny: 'tools.deny',
  mcp: 'mcpServers',
};

/** `unknown key(s): a (did you mean "b"?), c`: each key with what it is probably meant to be. */
export function unknownKeysMessage(at: readonly PropertyKey[], keys: readonly string[]): string {
  const known = objectKeysAt(configSchema, at);
  const named = keys.map((key) => {
    const meant = MEANT[[...at, key].join('.')] ?? closestName(key, known);
    return meant === undefined ? key : `${key} (did you mean "${meant}"?)`;
  });
  return `unknown key(s): ${named.join(', ')}`;
}

/** The keys the schema's object(s) at `path` accept, following records, arrays and unions. */
function objectKeysAt(schema: z.core.$ZodType, path: readonly PropertyKey[]): string[] {
  let nodes = [schema];
  for (const key of path) nodes = nodes.flatMap(unwrap).flatMap((node) => childOf(node, key));
  return nodes.flatMap(unwrap).flatMap((node) => {
    const def = node._zod.def as z.core.$ZodTypeDef & { shape?: Record<string, unknown> };
    return def.type === 'object' && def.shape !== undefined ? Object.keys(def.shape) : [];
  });
}

function unwrap(node: z.core.$ZodType): z.core.$ZodType[] {
  const def = node._zod.def as z.core.$ZodTypeDef & {
    innerType?: z.core.$ZodType;
    options?: z.core.$ZodType[];
  };
  if (def.type === 'optional' || def.type === 'nullable' || def.type === 'default') {
    return def.innerType === undefined ? [] : unwrap(def.innerType);
  }
  if (def.type === 'union') return (def.options ?? []).flatMap(unwrap);
  return [node];
}

function childOf(node: z.core.$ZodType, key: PropertyKey): z.core.$ZodType[] {
  const def = node._zod.def as z.core.$ZodTypeDef & {
    shape?: Record<string, z.core.$ZodType>;
    valueType?: z.core.$ZodType;
    element?: z.core.$ZodType;
  };
  if (def.type === 'object') {
    const child = typeof key === 'string' && def.shape !== undefined ? def.shape[key] : undefined;
    return child === undefined ? [] : [child];
  }
  if (def.type === 'record') return def.valueType === undefined ? [] : [def.valueType];
  if (def.type === 'array') return def.element === undefined ? [] : [def.element];
  return [];
}

/**
 * Reads and validates a config file. A missing file is an empty config (`found: false`); a file
 * that is not JSON, or not a valid config, gives every issue with its path.
 */
export async function loadConfigFile(file: string): Promise<ConfigOutcome> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { ok: true, config: {}, found: false };
    return {
      ok: false,
      issues: [{ file, path: '(root)', message: `cannot read: ${(error as Error).message}` }],
    };
  }
  // Editors on some systems save a byte-order mark; Node's own JSON loading ignores it too.
  if (text.startsWith('\uFEFF')) text = text.slice(1);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const where = position(text, jsonErrorOffset(text));
    return {
      ok: false,
      issues: [{ file, path: '(root)', message: `not valid JSON at ${where}: ${(error as Error).message}` }],
    };
  }
  return parseConfig(value, file);
}

/** The JSON Schema of the config file, generated from the zod schema. */
export function configJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(configSchema, { target: 'draft-2020-12', io: 'input' }) as Record<string, unknown>;
}
