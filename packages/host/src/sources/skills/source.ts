import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import * as path from 'node:path';
import type { ToolDescriptor, ToolDiagnostic } from '@toolhost/plugin-sdk';
import {
  isInvocable,
  SKILL_TOOL_NAME,
  SKILLS_SOURCE_ID,
  type Skill,
  type SkillCatalog,
  skillPromptLine,
  skillToolFor,
} from '../../core/dispatch/skills.js';
import { errorResult } from '../../core/wrap/results.js';
import type { RefreshReason, RegisteredTool, SourceAdapter, ToolSource } from '../../types.js';
import { Listeners } from '../../util/listeners.js';
import { AsyncMutex } from '../../util/lock.js';
import { parseSkill } from './parse.js';
import { readSkillFile, SKILL_FILE } from './read.js';
import { checkRequirements, type RequirementFacts } from './requirements.js';

export { SKILL_FILE };

export interface SkillSourceOptions {
  /** The skills folder (`<root>/skills`); it may not exist (no skills). */
  readonly dir: string;
  /** Paths in messages are shown relative to it. */
  readonly root: string;
  /** The config file as messages name it. */
  readonly configFile: string;
  /** Read at each refresh: the settings may have changed. */
  readonly facts: () => RequirementFacts;
  /** The largest SKILL.md read, bytes (`limits.skillFileBytes`); read at each refresh. */
  readonly maxFileBytes: () => number;
}

/** The `skill` tool's input schema: a skill name and its arguments. */
const SKILL_INPUT_SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1, description: 'The skill to use, by name' },
    arguments: {
      type: 'string',
      description: 'What the skill works on, in the words of the request (optional)',
    },
  },
  required: ['name'],
  additionalProperties: false,
} as const;

/**
 * The `skill` tool as the Map holds it; each session that calls it runs its own copy, bound to
 * it (`bindToSession`, core/dispatch/skills.ts).
 */
function skillRegistryTool(catalog: SkillCatalog): RegisteredTool {
  const lines = [...catalog.values()].filter((skill) => isInvocable(skill, 'model')).map(skillPromptLine);
  const descriptor: ToolDescriptor = {
    name: SKILL_TOOL_NAME,
    title: 'Use a skill',
    description: [
      "Loads a skill when one fits the task: returns the skill's instructions to follow, or runs the skill when it runs a tool. Skills:",
      ...lines,
    ].join('\n'),
    inputSchema: SKILL_INPUT_SCHEMA,
    owner: { kind: 'core' },
    executor: { kind: 'core', executorId: SKILL_TOOL_NAME },
  };
  const entry: RegisteredTool = {
    descriptor,
    source: 'builtin',
    sourceId: SKILLS_SOURCE_ID,
    groups: [SKILLS_SOURCE_ID],
    executor: {
      ref: { kind: 'core', executorId: SKILL_TOOL_NAME },
      run: async () => errorResult('The skill tool runs only inside a session'),
    },
    bindToSession: (session) => skillToolFor(entry, catalog, session),
  };
  return entry;
}

/**
 * The `skills/` folder as a source: it reads every `<name>/SKILL.md`, checks each skill's
 * requirements against the host, and contributes the `skill` tool while a skill the model may
 * use exists. The catalog goes into each snapshot beside the Map. Re-reading costs a read of
 * the skills only: a watcher's `files` run names the skills that changed, and no plugin is rebuilt.
 */
export class SkillSource implements SourceAdapter {
  readonly name = SKILLS_SOURCE_ID;
  readonly #options: SkillSourceOptions;
  readonly #lock = new AsyncMutex();
  readonly #changes = new Listeners<string>();
  #catalog: SkillCatalog = new Map();
  #contribution: readonly ToolSource[] = [];
  /** The catalog as JSON, to tell a refresh that changed nothing (no skills folder at start). */
  #signature = '[]';

  constructor(options: SkillSourceOptions) {
    this.#options = options;
  }

  /** Every skill, usable or not, in name order. */
  get catalog(): SkillCatalog {
    return this.#catalog;
  }

  async refresh(reason: RefreshReason): Promise<boolean> {
    // Plugin files are not skills; every other reason may change config, env or the folder.
    if (reason.kind === 'files' && (reason.skills?.size ?? 0) === 0) return false;
    return this.#lock.run(() => this.#read());
  }

  contributions(): readonly ToolSource[] {
    return this.#contribution;
  }

  onChange(listener: (cause: string) => void): () => void {
    return this.#changes.add(listener);
  }

  async close(): Promise<void> {}

  /** Reads every skill again; resolves with whether anything of the catalog changed. */
  async #read(): Promise<boolean> {
    const { dir } = this.#options;
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      entries = []; // No skills folder: no skills.
    }
    const folders = entries
      .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
      .map((entry) => entry.name)
      .sort();
    const facts = this.#options.facts();
    const maxBytes = this.#options.maxFileBytes();
    const skills = await Promise.all(folders.map((folder) => this.#readOne(folder, facts, maxBytes)));
    const catalog = new Map(skills.map((skill) => [skill.name, skill]));
    const signature = JSON.stringify(skills);
    if (signature === this.#signature) return false;
    this.#signature = signature;
    this.#catalog = catalog;
    const usable = skills.some((skill) => isInvocable(skill, 'model'));
    this.#contribution = usable
      ? [{ kind: 'builtin', id: SKILLS_SOURCE_ID, tools: [skillRegistryTool(catalog)], optIn: true }]
      : [];
    return true;
  }

  /**
   * One skill folder, read and checked. Never rejects: whatever goes wrong with the file is that
   * skill's `skill-invalid` diagnostic, so no SKILL.md can fail a start or a rebuild.
   */
  async #readOne(folder: string, facts: RequirementFacts, maxBytes: number): Promise<Skill> {
    const file = path.join(this.#options.dir, folder, SKILL_FILE);
    const shown = path.relative(this.#options.root, file) || file;
    const invalid = (messages: readonly string[]): Skill => ({
      name: folder,
      description: '',
      file,
      instructions: '',
      userInvocable: false,
      modelInvocable: false,
      diagnostics: messages.map((message): ToolDiagnostic => ({ reason: 'skill-invalid', message })),
      warnings: [],
    });
    try {
      const read = await readSkillFile(file, shown, maxBytes);
      if (!read.ok) return invalid([read.message]);
      const parsed = parseSkill(read.text, shown, folder);
      if (!parsed.ok) return invalid(parsed.problems);
      const diagnostics = await checkRequirements(
        { ...parsed.requires, ...(parsed.os === undefined ? {} : { os: parsed.os }) },
        facts,
        this.#options.configFile,
      );
      return {
        name: parsed.name,
        description: parsed.description,
        file,
        instructions: parsed.instructions,
        userInvocable: parsed.userInvocable,
        modelInvocable: parsed.modelInvocable,
        ...(parsed.dispatch === undefined ? {} : { dispatch: parsed.dispatch }),
        diagnostics,
        warnings: parsed.warnings,
      };
    } catch (error) {
      return invalid([`${shown}: cannot be used: ${error instanceof Error ? error.name : 'error'}`]);
    }
  }
}
