import * as z from 'zod';
import { type ConfigIssue, parseConfig } from '../config/load.js';
import { configSchema, type ToolhostConfig } from '../config/schema.js';
import { closestName } from '../util/closest.js';
import { issuePath } from '../util/zod-issues.js';
import type { HostCodeOptions, HostOptions } from './types.js';

/** Where issues of the options given in code say they are. */
export const CODE_SOURCE = 'createHost options';

/**
 * The code-only options, checked for their types (JavaScript callers get no compiler). A new
 * option of `HostCodeOptions` fails to compile until it is listed here.
 */
/** A folder under the root, or `false` for none: an empty string would name the root itself. */
const folderOption = (none: string) =>
  z
    .union([z.string(), z.literal(false)])
    .refine((value) => value !== '', {
      message: `an empty string names no folder: give a folder relative to the root, or false for ${none}`,
    })
    .optional();

const CODE_SHAPE = {
  root: z.string().min(1).optional(),
  configFile: z.union([z.string().min(1), z.literal(false)]).optional(),
  pluginsDir: folderOption('no plugins'),
  skillsDir: folderOption('no skills'),
  cache: z.boolean().optional(),
  watch: z.boolean().optional(),
  customTools: z.array(z.looseObject({ name: z.string() })).optional(),
  hooks: z.array(z.looseObject({})).optional(),
  availability: z.looseObject({}).optional(),
  mcp: z
    .strictObject({
      connectTimeoutMs: z.number().int().positive().optional(),
      backoff: z
        .strictObject({ initialMs: z.number().int().positive(), maxMs: z.number().int().positive() })
        .optional(),
      log: z.custom<(message: string) => void>((value) => typeof value === 'function').optional(),
    })
    .optional(),
} satisfies Record<keyof HostCodeOptions, z.ZodType>;

const CODE_KEYS: readonly string[] = Object.keys(CODE_SHAPE);
const CONFIG_KEYS: readonly string[] = Object.keys(configSchema.shape);
const codeSchema = z.strictObject(CODE_SHAPE);

/**
 * Where the options of the API before the config file's shape went: the key (or value) that
 * no longer exists, and what to write instead. Given only where the value is refused, so a plugin
 * whose id happens to be `sandbox` keeps its `plugins.sandbox` settings.
 */
const MOVED: readonly {
  readonly path: string;
  readonly applies: (options: object) => boolean;
  readonly hint: string;
}[] = [
  {
    path: 'plugins',
    applies: (o) => (o as { plugins?: unknown }).plugins === false,
    hint: '`plugins: false` is now `pluginsDir: false` (`plugins` holds the per-plugin settings, as in toolhost.config.json)',
  },
  ...(
    [
      ['settings', '`plugins.settings.<id>` is now `plugins.<id>`, as in toolhost.config.json'],
      ['sandbox', 'the sandbox is the top-level `sandbox` key, as in toolhost.config.json'],
      ['limits', 'default plugin limits are `limits.plugin`, as in toolhost.config.json'],
      ['dir', 'the plugins folder is the `pluginsDir` option'],
      ['cache', 'the bundle cache switch is the `cache` option'],
    ] as const
  ).map(([key, hint]) => ({
    path: `plugins.${key}`,
    applies: (o: object) => Object.hasOwn((o as { plugins?: object }).plugins ?? {}, key),
    hint,
  })),
  {
    path: 'mcp.callTimeoutMs',
    applies: (o) => Object.hasOwn((o as { mcp?: object }).mcp ?? {}, 'callTimeoutMs'),
    hint: 'the call timeout of bridged MCP servers is `limits.mcpCallTimeoutMs`, as in toolhost.config.json',
  },
];

/** A root key that is neither a config key nor a code option, and what it probably is. */
const MEANT_AT_ROOT: Readonly<Record<string, string>> = {
  policy: 'the allow/deny lists are `tools: { allow, deny }`, as in toolhost.config.json',
  config:
    'a config file is `configFile: "path"`; a config object is given as createHost\'s own keys: `createHost({ ...config })`',
};

/**
 * Splits `createHost`'s options into the config (validated by the config file's own schema) and
 * the code-only options. Every problem at once, or the two parts: a `ConfigIssue` list names each
 * key that is wrong and, where it can, what it is probably meant to be.
 */
export function splitHostOptions(
  options: HostOptions,
): { readonly code: HostCodeOptions; readonly config: ToolhostConfig } | { readonly issues: ConfigIssue[] } {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    return { issues: [issue('(root)', 'createHost takes an options object')] };
  }
  const code: Record<string, unknown> = {};
  const config: Record<string, unknown> = {};
  const issues: ConfigIssue[] = [];
  for (const [key, value] of Object.entries(options)) {
    if (CODE_KEYS.includes(key)) code[key] = value;
    else if (CONFIG_KEYS.includes(key)) config[key] = value;
    else issues.push(issue(key, unknownOption(key)));
  }
  const codeCheck = codeSchema.safeParse(code);
  if (!codeCheck.success) {
    for (const i of codeCheck.error.issues) {
      if (i.code !== 'unrecognized_keys') issues.push(issue(issuePath(i.path), i.message));
      // Each unknown key at its own path, so an old option's place (`mcp.callTimeoutMs`) is found.
      else for (const key of i.keys) issues.push(issue(issuePath([...i.path, key]), 'unknown option'));
    }
  }
  const parsed = parseConfig(config, CODE_SOURCE);
  if (!parsed.ok) issues.push(...parsed.issues);
  const explained = explainMoved(issues, options);
  if (explained.length > 0 || !parsed.ok) return { issues: explained };
  return { code: code as HostCodeOptions, config: parsed.config };
}

function issue(path: string, message: string): ConfigIssue {
  return { file: CODE_SOURCE, path, message };
}

function unknownOption(key: string): string {
  const moved = MEANT_AT_ROOT[key];
  if (moved !== undefined) return `unknown option; ${moved}`;
  const meant = closestName(key, [...CONFIG_KEYS, ...CODE_KEYS]);
  return meant === undefined
    ? `unknown option: neither a toolhost.config.json key (${CONFIG_KEYS.join(', ')}) nor a code option (${CODE_KEYS.join(', ')})`
    : `unknown option; did you mean "${meant}"?`;
}

/** Issues at or under an old option's place become one issue saying where it went. */
function explainMoved(issues: readonly ConfigIssue[], options: object): ConfigIssue[] {
  let out = [...issues];
  for (const moved of MOVED) {
    const under = (i: ConfigIssue) => i.path === moved.path || i.path.startsWith(`${moved.path}.`);
    if (!out.some(under) || !moved.applies(options)) continue;
    out = [...out.filter((i) => !under(i)), issue(moved.path, `moved: ${moved.hint}`)];
  }
  return out;
}
