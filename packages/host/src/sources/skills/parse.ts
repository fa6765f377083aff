/**
 * One SKILL.md read into a skill: YAML front matter between `---` lines, then Markdown
 * instructions. Whatever is wrong with the file comes back as a problem naming the file and the
 * line, never as a throw: a broken skill is hidden with that diagnostic and every other skill
 * keeps working. The file is not trusted: the YAML library throws on some inputs (too many
 * aliases, an alias to no anchor), and those throws are problems too.
 */
import { createRequire } from 'node:module';
import type { LineCounter, Document as YamlDocument } from 'yaml';
import * as z from 'zod';
import type { SkillArgMode } from '../../core/dispatch/skills.js';
import { SKILL_TOOL_NAME } from '../../core/dispatch/skills.js';

/**
 * The YAML library, loaded on the first SKILL.md: it is ≈ 70 modules, and a host whose project
 * has no skills should not pay for them at every start.
 */
let yamlModule: typeof import('yaml') | undefined;
function yaml(): typeof import('yaml') {
  yamlModule ??= createRequire(import.meta.url)('yaml') as typeof import('yaml');
  return yamlModule;
}

/** The values `os` takes: Node's `process.platform` names. */
export const PLATFORMS = [
  'aix',
  'android',
  'darwin',
  'freebsd',
  'linux',
  'openbsd',
  'sunos',
  'win32',
] as const;

/**
 * The most alias nodes (`*name`) a front matter may hold. A skill needs none; the YAML library's
 * own bound (100 resolved aliases) throws, and each alias can expand to whole subtrees.
 */
export const MAX_SKILL_ALIASES = 16;

/**
 * The longest front matter parsed, characters. Its fields fit in a few KiB (a description is at
 * most 1024 characters); the YAML library costs about 10 µs per node and more than linear time
 * in a map's keys (a 228 KB front matter of 20,000 keys took 21 s), so a file of the size
 * `limits.skillFileBytes` allows must not reach the parser as front matter.
 */
export const MAX_FRONT_MATTER_CHARS = 16 * 1024;

/** Names as the Agent Skills format has them: lower-case letters, digits and single hyphens. */
const SKILL_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

const nonBlank = z.string().trim().min(1, { error: 'must not be blank' });
const list = (what: string) =>
  z.array(nonBlank, { error: `must be a list of ${what}` }).max(64, { error: 'lists at most 64' });

/** Requirements: every one must hold, or the skill is hidden saying which does not. */
const requiresSchema = z.strictObject({
  env: list('environment variable names').optional(),
  bins: list('program names')
    .refine((bins) => bins.every((bin) => !/[/\\]/.test(bin)), {
      error: 'names programs looked up on PATH: no "/" or "\\"',
    })
    .optional(),
  config: list('dotted config paths').optional(),
});

const platform = z.enum(PLATFORMS, { error: `must be a process.platform value (${PLATFORMS.join(', ')})` });

/** The front matter. Keys of other agents' formats that mean nothing here are accepted and ignored. */
const frontMatterSchema = z.strictObject({
  name: z
    .string({ error: 'is required: the skill name (its folder name)' })
    .max(64, { error: 'is at most 64 characters' })
    .regex(SKILL_NAME, {
      error: 'must be lower-case letters, digits and single hyphens, e.g. "release-notes"',
    }),
  description: z
    .string({ error: 'is required: one or two sentences saying when to use the skill' })
    .trim()
    .min(1, { error: 'must not be blank' })
    .max(1024, { error: 'is at most 1024 characters' }),
  'user-invocable': z.boolean({ error: 'must be true or false' }).optional(),
  'disable-model-invocation': z.boolean({ error: 'must be true or false' }).optional(),
  'command-dispatch': z.literal('tool', { error: 'must be "tool" (the only dispatch target)' }).optional(),
  'command-tool': nonBlank.optional(),
  'command-arg-mode': z.literal('raw', { error: 'must be "raw" (the only mode)' }).optional(),
  requires: requiresSchema.optional(),
  os: z
    .union([platform, z.array(platform).min(1)], { error: 'must be a platform or a list of them' })
    .optional(),
  // The Agent Skills format's other fields: documentation here.
  license: z.unknown().optional(),
  compatibility: z.unknown().optional(),
  metadata: z.unknown().optional(),
  'allowed-tools': z.unknown().optional(),
});

type FrontMatter = z.infer<typeof frontMatterSchema>;

/** A SKILL.md as read: the skill's fields, or what is wrong with the file. */
export type ParsedSkill =
  | {
      readonly ok: true;
      readonly name: string;
      readonly description: string;
      readonly instructions: string;
      readonly userInvocable: boolean;
      readonly modelInvocable: boolean;
      readonly dispatch?: { readonly tool: string; readonly argMode: SkillArgMode };
      readonly requires: { readonly env: string[]; readonly bins: string[]; readonly config: string[] };
      readonly os?: readonly string[];
      /** Unknown front-matter keys, each `<file>:<line>: …`. */
      readonly warnings: readonly string[];
    }
  | { readonly ok: false; readonly problems: readonly string[] };

const KNOWN_KEYS = new Set(Object.keys(frontMatterSchema.shape));

/** The line (1-based, in the file) where the YAML node at `path` starts, else the front matter's. */
function lineOf(doc: YamlDocument, counter: LineCounter, path: readonly PropertyKey[]): number {
  for (let depth = path.length; depth >= 0; depth -= 1) {
    const node = depth === 0 ? doc.contents : doc.getIn(path.slice(0, depth) as unknown[], true);
    const range = (node as { range?: readonly number[] } | null | undefined)?.range;
    // +1: the YAML starts on the file's second line, after `---`.
    if (range !== undefined) return counter.linePos(range[0] ?? 0).line + 1;
  }
  return 1;
}

/** Splits `---\nYAML\n---\nMarkdown`; undefined when the file does not start with front matter. */
function splitFrontMatter(text: string): { yaml: string; body: string } | undefined {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[0]?.trim() !== '---') return undefined;
  const end = lines.findIndex((line, i) => i > 0 && line.trim() === '---');
  if (end === -1) return undefined;
  return {
    yaml: lines.slice(1, end).join('\n'),
    body: lines
      .slice(end + 1)
      .join('\n')
      .trim(),
  };
}

/**
 * What is wrong with the front matter's aliases, at which node: one past
 * {@link MAX_SKILL_ALIASES}, or one whose anchor (`&name`) is not set before it. Looked for in
 * document order before `toJS`, which would throw without saying where.
 */
function aliasProblem(doc: YamlDocument): { readonly at: number; readonly problem: string } | undefined {
  const anchors = new Set<string>();
  let count = 0;
  let found: { readonly at: number; readonly problem: string } | undefined;
  const { visit, isAlias } = yaml();
  visit(doc, {
    Node(_key, node) {
      if (!isAlias(node)) {
        if (node.anchor !== undefined) anchors.add(node.anchor);
        return undefined;
      }
      count += 1;
      const at = node.range?.[0] ?? 0;
      if (count > MAX_SKILL_ALIASES) {
        found = {
          at,
          problem: `the front matter uses more than ${MAX_SKILL_ALIASES} YAML aliases (*name); write the values out`,
        };
      } else if (!anchors.has(node.source)) {
        found = {
          at,
          problem: `invalid YAML: alias *${node.source} has no anchor &${node.source} before it`,
        };
      }
      return found === undefined ? undefined : visit.BREAK;
    },
  });
  return found;
}

/**
 * Reads the text of `<folder>/SKILL.md`. `shown` is the file as messages name it. The skill's
 * `name` must be its folder's name: that is how a person finds the file of a skill. Never throws.
 */
export function parseSkill(text: string, shown: string, folder: string): ParsedSkill {
  try {
    return parseChecked(text, shown, folder);
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return { ok: false, problems: [`${shown}:1: the front matter cannot be read: ${message}`] };
  }
}

function parseChecked(text: string, shown: string, folder: string): ParsedSkill {
  const parts = splitFrontMatter(text);
  if (parts === undefined) {
    return {
      ok: false,
      problems: [
        `${shown}:1: SKILL.md must start with YAML front matter between two "---" lines (name, description), then the instructions`,
      ],
    };
  }
  if (parts.yaml.length > MAX_FRONT_MATTER_CHARS) {
    return {
      ok: false,
      problems: [
        `${shown}:2: the front matter is longer than ${MAX_FRONT_MATTER_CHARS} characters; it holds the fields only, and the instructions go after its closing "---"`,
      ],
    };
  }
  const { LineCounter, parseDocument, isMap, isScalar } = yaml();
  const counter = new LineCounter();
  const doc = parseDocument(parts.yaml, { lineCounter: counter, prettyErrors: true });
  if (doc.errors.length > 0) {
    return {
      ok: false,
      problems: doc.errors.map((error) => {
        const line = (error.linePos?.[0].line ?? 0) + 1;
        const message = (error.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
        return `${shown}:${line}: invalid YAML: ${message}`;
      }),
    };
  }
  if (!isMap(doc.contents)) {
    return {
      ok: false,
      problems: [`${shown}:2: the front matter must be a YAML mapping (key: value lines)`],
    };
  }
  const alias = aliasProblem(doc);
  if (alias !== undefined) {
    return { ok: false, problems: [`${shown}:${counter.linePos(alias.at).line + 1}: ${alias.problem}`] };
  }
  let data: Record<string, unknown>;
  try {
    data = doc.toJS() as Record<string, unknown>;
  } catch (error) {
    // Whatever else the library throws (it names no place): the front matter's first line.
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, problems: [`${shown}:2: invalid YAML: ${message}`] };
  }
  const warnings: string[] = [];
  const known: Record<string, unknown> = {};
  for (const item of doc.contents.items) {
    const key = isScalar(item.key) ? String(item.key.value) : String(item.key);
    if (KNOWN_KEYS.has(key)) known[key] = data[key];
    else {
      warnings.push(
        `${shown}:${lineOf(doc, counter, [key])}: unknown front-matter key "${key}" is ignored (known: ${[...KNOWN_KEYS].join(', ')})`,
      );
    }
  }
  const parsed = frontMatterSchema.safeParse(known);
  if (!parsed.success) {
    return {
      ok: false,
      problems: parsed.error.issues.map((issue) => {
        const where = issue.path.length === 0 ? 'front matter' : issue.path.join('.');
        return `${shown}:${lineOf(doc, counter, issue.path)}: ${where} ${issue.message}`;
      }),
    };
  }
  return checked(parsed.data, parts.body, shown, folder, doc, counter, warnings);
}

/** The rules between fields, once each field is well formed. */
function checked(
  front: FrontMatter,
  instructions: string,
  shown: string,
  folder: string,
  doc: YamlDocument,
  counter: LineCounter,
  warnings: readonly string[],
): ParsedSkill {
  const at = (key: string) => `${shown}:${lineOf(doc, counter, [key])}`;
  const problems: string[] = [];
  if (front.name !== folder) {
    problems.push(`${at('name')}: name "${front.name}" must be the skill's folder name "${folder}"`);
  }
  const tool = front['command-tool'];
  if (front['command-dispatch'] === 'tool' && tool === undefined) {
    problems.push(`${at('command-dispatch')}: command-dispatch: tool needs command-tool: <tool name>`);
  }
  if (tool !== undefined && front['command-dispatch'] !== 'tool') {
    problems.push(`${at('command-tool')}: command-tool needs command-dispatch: tool beside it`);
  }
  if (tool === SKILL_TOOL_NAME) {
    problems.push(`${at('command-tool')}: a skill cannot dispatch to the "${SKILL_TOOL_NAME}" tool itself`);
  }
  if (tool === undefined && instructions === '') {
    problems.push(`${shown}:1: the instructions (the Markdown after the front matter) are empty`);
  }
  if (problems.length > 0) return { ok: false, problems };
  const os = front.os === undefined ? undefined : typeof front.os === 'string' ? [front.os] : front.os;
  return {
    ok: true,
    name: front.name,
    description: front.description,
    instructions,
    userInvocable: front['user-invocable'] ?? true,
    modelInvocable: front['disable-model-invocation'] !== true,
    ...(tool === undefined ? {} : { dispatch: { tool, argMode: front['command-arg-mode'] ?? 'raw' } }),
    requires: {
      env: front.requires?.env ?? [],
      bins: front.requires?.bins ?? [],
      config: front.requires?.config ?? [],
    },
    ...(os === undefined ? {} : { os }),
    warnings,
  };
}
