/**
 * Skills: SKILL.md folders under `skills/`, read into the host's catalog, shown to the model in
 * the system prompt section, loaded through the `skill` tool (a tool of the Map like any other),
 * and, for a skill that dispatches, run through the invoking session's `call` so every policy
 * layer of that session applies.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import {
  createHost,
  type HostChange,
  type HostOptions,
  resultText,
  type Skill,
  type ToolHost,
} from '@toolhost/host';
import { internalsOf } from '@toolhost/host/internal';
import { defineTool } from '@toolhost/plugin-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';

let host: ToolHost | undefined;
const roots: string[] = [];

afterEach(async () => {
  await host?.close();
  host = undefined;
  for (const root of roots.splice(0)) await rm(root, { recursive: true, force: true });
});

/** A SKILL.md: front matter lines, then instructions. */
const md = (front: string, body = 'Follow these steps.') => `---\n${front}\n---\n${body}\n`;

async function writeSkill(root: string, folder: string, text: string): Promise<void> {
  await mkdir(path.join(root, 'skills', folder), { recursive: true });
  await writeFile(path.join(root, 'skills', folder, 'SKILL.md'), text);
}

/** Every call the `echo_command` tool received, with its session. */
const received: { input: unknown }[] = [];

const echoCommand = defineTool({
  name: 'echo_command',
  description: 'Echoes what a skill dispatched',
  input: z.object({ command: z.string(), commandName: z.string(), skillName: z.string() }),
  execute: (input) => {
    received.push({ input });
    return `ran ${input.skillName}: ${input.command}`;
  },
});

const opsOnly = defineTool({
  name: 'ops_command',
  description: 'Only in the ops channel',
  input: z.object({ command: z.string(), commandName: z.string(), skillName: z.string() }),
  availability: { kind: 'context', key: 'channel', equals: 'ops' },
  execute: (input) => `ops ran ${input.command}`,
});

const needsToken = defineTool({
  name: 'token_command',
  description: 'Needs a token',
  input: z.object({ command: z.string() }).passthrough(),
  availability: { kind: 'env', name: 'SKILL_TEST_TOKEN' },
  execute: () => 'used the token',
});

async function start(
  skills: Record<string, string>,
  options: Omit<HostOptions, 'root'> = {},
): Promise<{ host: ToolHost; root: string }> {
  const root = await mkdtemp(path.join(tmpdir(), 'toolhost-skills-'));
  roots.push(root);
  for (const [folder, text] of Object.entries(skills)) await writeSkill(root, folder, text);
  received.length = 0;
  host = await createHost({
    root,
    configFile: false,
    pluginsDir: false,
    builtins: false,
    customTools: [echoCommand, opsOnly, needsToken],
    availability: { env: {} },
    ...options,
  });
  return { host, root };
}

const byName = (h: ToolHost, name: string): Skill | undefined => h.skills().find((s) => s.name === name);

const DEPLOY = md(
  'name: deploy\ndescription: Deploys the app\ncommand-dispatch: tool\ncommand-tool: echo_command\ncommand-arg-mode: raw',
);

describe('SKILL.md parsing', () => {
  it('reads name, description, instructions, invocation flags and the dispatch target', async () => {
    const { host: h } = await start({
      review: md(
        'name: review\ndescription: Reviews a diff\nuser-invocable: false\nlicense: MIT',
        '# Review\n\nRead the diff first.',
      ),
      deploy: DEPLOY,
    });
    expect(byName(h, 'review')).toMatchObject({
      description: 'Reviews a diff',
      instructions: '# Review\n\nRead the diff first.',
      userInvocable: false,
      modelInvocable: true,
      diagnostics: [],
      warnings: [],
    });
    expect(byName(h, 'deploy')?.dispatch).toEqual({ tool: 'echo_command', argMode: 'raw' });
  });

  it('bad YAML hides that skill with the file and line; the others keep working', async () => {
    const { host: h } = await start({
      broken: '---\nname: broken\ndescription: [unclosed\nother: 1\n---\nBody\n',
      good: md('name: good\ndescription: Works'),
    });
    const broken = byName(h, 'broken');
    expect(broken?.diagnostics[0]?.reason).toBe('skill-invalid');
    expect(broken?.diagnostics[0]?.message).toMatch(
      new RegExp(`^${path.join('skills', 'broken', 'SKILL.md')}:4: invalid YAML`),
    );
    const outcome = await h.session().call('skill', { name: 'good' });
    expect(outcome.status).toBe('ok');
    expect(resultText(outcome.result)).toContain('Follow these steps.');
  });

  it('a missing description, a wrong type and a name that is not the folder name are named with their line', async () => {
    const { host: h } = await start({
      nodesc: md('name: nodesc'),
      typed: md('name: typed\ndescription: Typed\nuser-invocable: "yes"'),
      renamed: md('description: Renamed\nname: other-name'),
      nofront: 'Just instructions, no front matter\n',
    });
    expect(byName(h, 'nodesc')?.diagnostics[0]?.message).toMatch(/SKILL\.md:2: description is required/);
    expect(byName(h, 'typed')?.diagnostics[0]?.message).toMatch(
      /SKILL\.md:4: user-invocable must be true or false/,
    );
    expect(byName(h, 'renamed')?.diagnostics[0]?.message).toMatch(
      /SKILL\.md:3: name "other-name" must be the skill's folder name "renamed"/,
    );
    expect(byName(h, 'nofront')?.diagnostics[0]?.message).toMatch(
      /SKILL\.md:1: SKILL\.md must start with YAML front matter/,
    );
  });

  it('an unknown front-matter key is a warning with its line, and the skill works', async () => {
    const { host: h } = await start({ odd: md('name: odd\ndescription: Odd\ncolour: blue') });
    const odd = byName(h, 'odd');
    expect(odd?.diagnostics).toEqual([]);
    expect(odd?.warnings[0]).toMatch(/SKILL\.md:4: unknown front-matter key "colour"/);
  });
});

describe('requirements', () => {
  it('hides a skill per missing env, bin, config key or os, saying what is missing and how to fix it', async () => {
    const other = process.platform === 'win32' ? 'linux' : 'win32';
    const { host: h } = await start(
      {
        envy: md(
          'name: envy\ndescription: Needs env\nrequires:\n  env: [SKILL_TEST_MISSING, SKILL_TEST_SET]',
        ),
        binny: md('name: binny\ndescription: Needs a bin\nrequires:\n  bins: [toolhost-no-such-program]'),
        cfg: md(
          'name: cfg\ndescription: Needs config\nrequires:\n  config: [plugins.gh.config.token, signals.context.team]',
        ),
        osy: md(`name: osy\ndescription: Needs another os\nos: ${other}`),
        fine: md(
          `name: fine\ndescription: All there\nos: [${process.platform}]\nrequires:\n  env: [SKILL_TEST_SET]`,
        ),
      },
      {
        availability: { env: { SKILL_TEST_SET: 'x', SKILL_TEST_MISSING: '  ' } },
        signals: { context: { team: 'core' } },
      },
    );
    const reasons = (name: string) => byName(h, name)?.diagnostics.map((d) => [d.reason, d.message]);
    expect(reasons('envy')).toEqual([
      ['env-missing', expect.stringMatching(/needs the environment variable SKILL_TEST_MISSING: set it/)],
    ]);
    expect(reasons('binny')).toEqual([
      [
        'bin-missing',
        expect.stringMatching(/needs the program "toolhost-no-such-program" on PATH: install it/),
      ],
    ]);
    expect(reasons('cfg')).toEqual([
      [
        'config-missing',
        expect.stringMatching(/needs config key "plugins.gh.config.token" in toolhost.config.json/),
      ],
    ]);
    expect(reasons('osy')).toEqual([
      ['os-mismatch', `runs only on ${other}; this host runs on ${process.platform}`],
    ]);
    expect(reasons('fine')).toEqual([]);
    const session = h.session();
    const refused = await session.call('skill', { name: 'binny' });
    expect(refused.result.isError).toBe(true);
    expect(resultText(refused.result)).toMatch(
      /Skill "binny" is not available: bin-missing: needs the program/,
    );
    expect(session.systemPromptSection()).not.toContain('binny');
  });
});

describe('where skills appear', () => {
  it('the system prompt section lists model-invocable skills by name and description, never instructions', async () => {
    const { host: h } = await start({
      review: md('name: review\ndescription: Reviews a diff', 'SECRET-STEPS'),
      manual: md('name: manual\ndescription: Only for people\ndisable-model-invocation: true'),
    });
    const section = h.session().systemPromptSection();
    expect(section).toContain('## Skills');
    expect(section).toContain('- review: Reviews a diff');
    expect(section).toContain('`skill` tool');
    expect(section).not.toContain('manual');
    expect(section).not.toContain('SECRET-STEPS');
  });

  it('the skill tool returns the instructions, with the arguments', async () => {
    const { host: h } = await start({ review: md('name: review\ndescription: Reviews', 'Step 1. Read.') });
    const outcome = await h.session().call('skill', { name: 'review', arguments: 'PR 42' });
    expect(resultText(outcome.result)).toBe('# Skill: review\n\nStep 1. Read.\n\nArguments: PR 42');
  });

  it('no skills: no skill tool, and nothing about skills in the prompt', async () => {
    const { host: h } = await start({});
    expect(h.skills()).toEqual([]);
    expect(internalsOf(h).registry.tools.has('skill')).toBe(false);
    expect(h.session().systemPromptSection()).not.toContain('Skills');
  });

  it('the skill tool is a tool of the Map: group:skills in tools.deny takes it away with the prompt lines', async () => {
    const { host: h } = await start(
      { review: md('name: review\ndescription: Reviews') },
      { tools: { deny: ['group:skills'] } },
    );
    const session = h.session();
    expect(session.check('skill')).toMatchObject({ ok: false, refusal: 'denied' });
    expect(session.systemPromptSection()).not.toContain('review');
  });

  it('disable-model-invocation refuses the model; user-invocable: false refuses invokeSkill', async () => {
    const { host: h } = await start({
      manual: md('name: manual\ndescription: People only\ndisable-model-invocation: true', 'Manual steps'),
      auto: md('name: auto\ndescription: Model only\nuser-invocable: false', 'Auto steps'),
    });
    const session = h.session();
    const byModel = await session.call('skill', { name: 'manual' });
    expect(resultText(byModel.result)).toMatch(
      /for the user to invoke only \(disable-model-invocation: true\)/,
    );
    expect(resultText((await session.invokeSkill('manual')).result)).toContain('Manual steps');
    const byUser = await session.invokeSkill('auto');
    expect(byUser.result.isError).toBe(true);
    expect(resultText(byUser.result)).toMatch(/cannot be invoked by the user \(user-invocable: false\)/);
  });
});

describe('dispatch through the invoking session', () => {
  it('runs the tool with { command, commandName, skillName } from the skill tool and from invokeSkill', async () => {
    const { host: h } = await start({ deploy: DEPLOY });
    const session = h.session();
    const outcome = await session.call('skill', { name: 'deploy', arguments: 'staging --fast' });
    expect(resultText(outcome.result)).toBe('ran deploy: staging --fast');
    expect(received[0]?.input).toEqual({
      command: 'staging --fast',
      commandName: 'deploy',
      skillName: 'deploy',
    });
    expect(resultText((await session.invokeSkill('deploy', 'prod')).result)).toBe('ran deploy: prod');
  });

  it('is refused when the session could not call the tool: denied, hidden or inactive', async () => {
    const skills = {
      deploy: DEPLOY,
      token: md(
        'name: token\ndescription: Uses a token\ncommand-dispatch: tool\ncommand-tool: token_command',
      ),
    };
    const denied = await start(skills, { tools: { deny: ['echo_command'] } });
    const viaDenied = await denied.host.session().call('skill', { name: 'deploy' });
    expect(viaDenied.result.isError).toBe(true);
    expect(resultText(viaDenied.result)).toMatch(
      /runs tool "echo_command", which this session cannot call: .*policy-denied/,
    );
    expect(resultText((await denied.host.session().invokeSkill('deploy')).result)).toMatch(/cannot call/);
    await denied.host.close();

    const { host: h } = await start(skills);
    const hidden = await h.session().call('skill', { name: 'token' });
    expect(resultText(hidden.result)).toMatch(
      /runs tool "token_command", which this session cannot call: .*SKILL_TEST_TOKEN/,
    );

    const narrow = h.session({ activeTools: ['skill'] });
    const inactive = await narrow.call('skill', { name: 'deploy' });
    expect(resultText(inactive.result)).toMatch(
      /which this session cannot call: Tool "echo_command" is not active/,
    );
    expect(narrow.systemPromptSection()).not.toContain('deploy');
    expect(received).toEqual([]);
  });

  it('is bound to the session that invoked it: its context, its id in the hooks', async () => {
    const { host: h } = await start({
      ops: md('name: ops\ndescription: Ops things\ncommand-dispatch: tool\ncommand-tool: ops_command'),
    });
    const seen: { sessionId: string; toolName: string }[] = [];
    h.addHooks({
      name: 'watch',
      beforeToolCall: ({ sessionId, toolName }) => {
        seen.push({ sessionId, toolName });
        return undefined;
      },
    });
    const inOps = h.session({ id: 'in-ops', context: { channel: 'ops' } });
    const elsewhere = h.session({ id: 'elsewhere', context: { channel: 'general' } });
    const [a, b] = await Promise.all([
      inOps.call('skill', { name: 'ops', arguments: 'restart' }),
      elsewhere.call('skill', { name: 'ops', arguments: 'restart' }),
    ]);
    expect(resultText(a.result)).toBe('ops ran restart');
    expect(b.result.isError).toBe(true);
    expect(resultText(b.result)).toMatch(/which this session cannot call: .*context-mismatch/);
    expect(seen).toEqual(
      expect.arrayContaining([
        { sessionId: 'in-ops', toolName: 'skill' },
        { sessionId: 'in-ops', toolName: 'ops_command' },
        { sessionId: 'elsewhere', toolName: 'skill' },
      ]),
    );
    expect(seen).not.toContainEqual({ sessionId: 'elsewhere', toolName: 'ops_command' });
  });

  it('hooks see the dispatched call, and a hook that blocks it blocks the skill', async () => {
    const { host: h } = await start({ deploy: DEPLOY });
    const session = h.session();
    const inputs: unknown[] = [];
    session.addHooks({
      name: 'gate',
      beforeToolCall: ({ toolName, input }) => {
        if (toolName !== 'echo_command') return undefined;
        inputs.push(input);
        return { block: true, reason: 'no deploys today' };
      },
    });
    const outcome = await session.call('skill', { name: 'deploy', arguments: 'prod' });
    expect(inputs).toEqual([{ command: 'prod', commandName: 'deploy', skillName: 'deploy' }]);
    expect(resultText(outcome.result)).toMatch(/blocked by hook "gate": no deploys today/);
    expect(received).toEqual([]);
  });
});

describe('hot reload', () => {
  it('adding, editing and removing a SKILL.md changes the host, with a change event naming the skill', async () => {
    const { host: h, root } = await start({ first: md('name: first\ndescription: First') }, { watch: true });
    // The cause names every skill of the batch (`skills:a,b`), and a folder made before its file is
    // two batches: wait for an event naming the skill after which the state asked for holds.
    const until = (skill: string, holds: () => boolean) =>
      new Promise<HostChange>((resolve) => {
        const stop = h.on('change', (change) => {
          const [kind, names = ''] = change.cause.split(':');
          if (kind === 'skills' && names.split(',').includes(skill) && holds()) {
            stop();
            resolve(change);
          }
        });
      });
    const skillTool = () => internalsOf(h).registry.tools.get('skill')?.descriptor.description ?? '';

    const added = until('second', () => byName(h, 'second')?.diagnostics.length === 0);
    await writeSkill(root, 'second', md('name: second\ndescription: Second'));
    await added;
    expect(skillTool()).toContain('- second: Second');

    const edited = until('second', () => byName(h, 'second')?.description === 'Second, edited');
    await writeSkill(root, 'second', md('name: second\ndescription: Second, edited', 'New steps'));
    await edited;
    expect(resultText((await h.session().call('skill', { name: 'second' })).result)).toContain('New steps');

    const removed = until('second', () => byName(h, 'second') === undefined);
    await rm(path.join(root, 'skills', 'second'), { recursive: true });
    await removed;
    expect(skillTool()).not.toContain('second');
    expect(h.session().systemPromptSection()).not.toContain('second');

    const emptied = until('first', () => !internalsOf(h).registry.tools.has('skill'));
    await rm(path.join(root, 'skills', 'first', 'SKILL.md'));
    // Each batch re-reads the whole folder: a late event of the removal above may be the one that
    // saw this file go, so the state is checked here, not which event's diff carried it.
    await emptied;
    expect(byName(h, 'first')?.diagnostics[0]?.message).toMatch(/SKILL\.md: missing/);
  });
});

describe('the bundled example', () => {
  it('examples/skills/text-report parses as formatted in the repo and names tools that exist', async () => {
    const file = path.resolve(__dirname, '../../examples/skills/text-report/SKILL.md');
    const { host: h } = await start({ 'text-report': await readFile(file, 'utf8') });
    const skill = byName(h, 'text-report');
    expect(skill?.diagnostics).toEqual([]);
    expect(skill?.warnings).toEqual([]);
    expect(skill?.instructions).toContain('`text_stats`');
  });
});
