import { internalsOf } from '@toolhost/host/internal';
import { context, defineTool, env } from '@toolhost/plugin-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { DEFAULT_LIMITS } from '../../src/core/wrap/wrapper.js';
import { hiddenReasons, tempProject, visibleNames } from './helpers.js';

const project = tempProject();

const BUILTINS = ['edit', 'grep', 'ls', 'read', 'write'];

/** A variable no one else sets, so the test decides whether it is there. */
const VAR = `TOOLHOST_CONFIG_TEST_${process.pid}`;

const needsVar = defineTool({
  name: 'needs_var',
  description: 'Visible when the variable is set',
  input: z.object({}),
  availability: env(VAR),
  execute: () => 'ok',
});

const cliOnly = defineTool({
  name: 'cli_only',
  description: 'Visible in the cli channel',
  input: z.object({}),
  availability: context('channel', 'cli'),
  execute: () => 'ok',
});

describe('config and API settings, merged', () => {
  afterEach(() => {
    delete process.env[VAR];
  });

  it('applies the config deny list', async () => {
    await project.write({ tools: { deny: ['write'] } });
    const host = await project.start();
    expect(internalsOf(host).registry.tools.has('write')).toBe(false);
    expect(hiddenReasons(host.plan()).get('write')).toEqual(['policy-denied']);
    expect(visibleNames(host.plan())).toEqual(['edit', 'grep', 'ls', 'read']);
  });

  it('applies tools.defer and tools.catalog to what sessions show, not to what exists', async () => {
    await project.write({ tools: { defer: ['group:builtin'], catalog: { always: ['read'] } } });
    const host = await project.start();
    expect(visibleNames(host.plan())).toEqual(BUILTINS);
    const session = host.session();
    expect(session.deferredTools()).toEqual(['edit', 'grep', 'ls', 'write']);
    expect(session.tools('mcp').map((t) => t.name)).toEqual(['read', 'tool_search', 'call_tool']);
  });

  it('adds the API deny list to the config one', async () => {
    await project.write({ tools: { deny: ['write'] } });
    const host = await project.start({ tools: { deny: ['edit'] } });
    expect(visibleNames(host.plan())).toEqual(['grep', 'ls', 'read']);
    expect(hiddenReasons(host.plan()).get('edit')).toEqual(['policy-denied']);
    expect(hiddenReasons(host.plan()).get('write')).toEqual(['policy-denied']);
  });

  it('lets the API allow list replace the config one', async () => {
    await project.write({ tools: { allow: ['ls', 'grep'] } });
    expect(visibleNames((await project.start()).plan())).toEqual(['grep', 'ls']);
    expect(visibleNames((await project.start({ tools: { allow: ['read'] } })).plan())).toEqual(['read']);
  });

  it('keeps the config deny list when setPolicy replaces the API policy', async () => {
    await project.write({ tools: { deny: ['write'] } });
    const host = await project.start();
    host.setPolicy({ deny: ['edit'] });
    expect(visibleNames(host.plan())).toEqual(['grep', 'ls', 'read']);
  });

  it('hides every built-in, as policy-denied, with builtins: false', async () => {
    await project.write({ builtins: false });
    const host = await project.start({ customTools: [needsVar] });
    // Code mode's tools stay: they have their own switch (tools.codeMode).
    expect([...internalsOf(host).registry.tools.keys()]).toEqual(['run_code', 'describe_tools', 'needs_var']);
    const reasons = hiddenReasons(host.plan());
    for (const name of BUILTINS) expect(reasons.get(name)).toEqual(['policy-denied']);
  });

  it('hides every built-in with builtins: { enabled: false } too', async () => {
    await project.write({ builtins: { enabled: false } });
    const host = await project.start();
    expect([...internalsOf(host).registry.tools.keys()]).toEqual(['run_code', 'describe_tools']);
  });

  it('creates exec only when the config enables it', async () => {
    expect(internalsOf(await project.start()).registry.tools.has('exec')).toBe(false);
    await project.write({ builtins: { exec: { enabled: true } } });
    const host = await project.start();
    expect(internalsOf(host).registry.tools.has('exec')).toBe(true);
    expect(visibleNames(host.plan())).toContain('exec');
  });

  it("gives grep the config's time budgets", async () => {
    await project.write({ builtins: { grep: { searchBudgetMs: 3_000, fileBudgetMs: 250 } } });
    const host = await project.start();
    const description = internalsOf(host).registry.tools.get('grep')?.descriptor.description ?? '';
    expect(description).toContain('or 3 s');
    expect(description).toContain('over 250 ms');
  });

  it('lets the API builtins option win over the config', async () => {
    await project.write({ builtins: { exec: { enabled: true } } });
    const host = await project.start({ builtins: false });
    expect(internalsOf(host).registry.tools.has('exec')).toBe(false);
    expect([...internalsOf(host).registry.tools.keys()]).toEqual(['run_code', 'describe_tools']);
  });

  it('shows env() checks every variable when signals.env is absent', async () => {
    process.env[VAR] = '1';
    await project.write({});
    const host = await project.start({ customTools: [needsVar] });
    expect(visibleNames(host.plan())).toContain('needs_var');
  });

  it('shows env() checks only the variables signals.env names', async () => {
    process.env[VAR] = '1';
    await project.write({ signals: { env: ['PATH'] } });
    const hidden = await project.start({ customTools: [needsVar] });
    expect(hiddenReasons(hidden.plan()).get('needs_var')).toEqual(['env-missing']);
    await project.write({ signals: { env: ['PATH', VAR] } });
    const visible = await project.start({ customTools: [needsVar] });
    expect(visibleNames(visible.plan())).toContain('needs_var');
  });

  it('ignores the config signals when the API gives availability', async () => {
    process.env[VAR] = '1';
    await project.write({ signals: { env: [VAR] } });
    const host = await project.start({ customTools: [needsVar], availability: { env: {} } });
    expect(hiddenReasons(host.plan()).get('needs_var')).toEqual(['env-missing']);
  });

  it('makes signals.context the default session context, which a session may override', async () => {
    await project.write({ signals: { context: { channel: 'cli' } } });
    const host = await project.start({ customTools: [cliOnly] });
    expect(
      host
        .session()
        .descriptors()
        .map((d) => d.name),
    ).toContain('cli_only');
    const web = host.session({ context: { channel: 'web' } });
    expect(web.descriptors().map((d) => d.name)).not.toContain('cli_only');
    expect(hiddenReasons(web.plan()).get('cli_only')).toEqual(['context-mismatch']);
  });

  it('merges config limits over the defaults and API limits over both', async () => {
    await project.write({ limits: { timeoutMs: 1_234, hookTimeoutMs: 567 } });
    const host = await project.start({ limits: { hookTimeoutMs: 89 } });
    expect(internalsOf(host).snapshot().limits).toEqual({
      ...DEFAULT_LIMITS,
      timeoutMs: 1_234,
      hookTimeoutMs: 89,
    });
  });
});
