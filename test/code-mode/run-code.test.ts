/**
 * Code mode: one `run_code` tool whose script calls the session's tools as async functions, each
 * call through the session's full wrapper (policy, availability, hooks, validation) — the same
 * whether the script's isolate is in the executor process (`sandbox: 'process'`, each call
 * crossing back to the host) or in the host (`sandbox: 'inline'`).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHost, resultText, type Session, type ToolHost } from '@toolhost/host';
import { defineTool } from '@toolhost/plugin-sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';

let root: string;
let host: ToolHost;
/** Where scripts run in the tests being run (see the `describe.each` below). */
let sandbox: 'inline' | 'process';

async function start(config: Record<string, unknown> = {}): Promise<void> {
  host = await createHost({ root, builtins: false, availability: { env: {} }, sandbox, ...config });
  host.addTool(
    defineTool({
      name: 'github_create_issue',
      description: 'Create a GitHub issue in a repository',
      input: z.object({ title: z.string(), body: z.string().optional() }),
      execute: ({ title }) => ({ content: [], structuredContent: { number: 7, title } }),
    }),
  );
  host.addTool(
    defineTool({
      name: 'slack_post_message',
      description: 'Post a message to a Slack channel',
      input: z.object({ channel: z.string(), text: z.string() }),
      execute: ({ channel, text }) => `posted to ${channel}: ${text}`,
    }),
  );
  host.addTool(
    defineTool({
      name: 'deploy_production',
      description: 'Deploy to production',
      input: z.object({}),
      execute: () => 'deployed',
    }),
  );
}

async function run(session: Session, code: string) {
  return (await session.call('run_code', { code })).result;
}

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'toolhost-code-mode-'));
});

afterEach(async () => {
  await host?.close();
  await rm(root, { recursive: true, force: true });
});

describe.each(['process', 'inline'] as const)('code mode (sandbox %s)', (placement) => {
  beforeEach(() => {
    sandbox = placement;
  });

  it('hands the model run_code and describe_tools instead of every tool', async () => {
    await start();
    expect(
      host
        .session()
        .tools('anthropic')
        .map((t) => t.name),
    ).toContain('github_create_issue');
    const session = host.session({ codeMode: true });
    expect(session.tools('anthropic').map((t) => t.name)).toEqual(['run_code', 'describe_tools']);
    const description = session.tools('anthropic')[0]?.description ?? '';
    expect(description.length).toBeLessThan(400);
  });

  it('is on for every session when the config says tools.codeMode', async () => {
    await start({ tools: { codeMode: true } });
    expect(
      host
        .session()
        .tools('anthropic')
        .map((t) => t.name),
    ).toEqual(['run_code', 'describe_tools']);
    expect(host.session({ codeMode: false }).tools('anthropic').length).toBe(3);
  });

  it('runs a script that calls two tools and returns a summary', async () => {
    await start();
    const session = host.session({ codeMode: true });
    const result = await run(
      session,
      `const issue = await tools.github_create_issue({ title: 'Broken build' });
       const posted = await tools.slack_post_message({ channel: '#dev', text: 'issue ' + issue.number });
       console.log('created', issue);
       return { issue: issue.number, posted };`,
    );
    expect(result.isError).not.toBe(true);
    const text = resultText(result);
    expect(text).toContain('created {"number":7,"title":"Broken build"}');
    expect(text).toContain('"issue": 7');
    expect(text).toContain('"posted": "posted to #dev: issue 7"');
  });

  it('refuses a denied or unknown tool from a script with the message of a direct call', async () => {
    await start({ tools: { deny: ['deploy_production'] } });
    const direct = resultText((await host.session().call('deploy_production', {})).result);
    expect(direct).toMatch(/policy-denied/);
    const session = host.session({ codeMode: true });
    const result = await run(
      session,
      `try { await tools.deploy_production({}); return 'ran'; } catch (e) { return e.message; }`,
    );
    expect(resultText(result)).toContain(JSON.stringify(direct));
    const inactive = host.session({ codeMode: true, activeTools: ['slack_post_message'] });
    const directInactive = resultText((await inactive.call('github_create_issue', { title: 'x' })).result);
    expect(directInactive).toMatch(/not active/);
    const fromCode = await run(inactive, `await tools.github_create_issue({ title: 'x' });`);
    expect(fromCode.isError).toBe(true);
    expect(resultText(fromCode)).toContain(directInactive);
  });

  it('runs before-hooks on calls from code: a block and a rewrite', async () => {
    await start();
    const session = host.session({ codeMode: true });
    const seen: string[] = [];
    session.addHooks({
      name: 'guard',
      beforeToolCall: (event) => {
        seen.push(event.descriptor.name);
        if (event.descriptor.name === 'github_create_issue')
          return { block: true, reason: 'no issues today' };
        if (event.descriptor.name === 'slack_post_message')
          return { input: { channel: '#audit', text: 'rewritten' } };
        return undefined;
      },
    });
    const result = await run(
      session,
      `let blocked;
       try { await tools.github_create_issue({ title: 'x' }); } catch (e) { blocked = e.message; }
       return { blocked, posted: await tools.slack_post_message({ channel: '#dev', text: 'hi' }) };`,
    );
    const text = resultText(result);
    expect(text).toContain('was blocked by hook \\"guard\\": no issues today');
    expect(text).toContain('posted to #audit: rewritten');
    expect(seen).toEqual(['run_code', 'github_create_issue', 'slack_post_message']);
  });

  it('validates inputs of calls from code like direct calls', async () => {
    await start();
    const session = host.session({ codeMode: true });
    const result = await run(session, `return await tools.github_create_issue({ titel: 'x' });`);
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/Invalid input for tool "github_create_issue"/);
  });

  it('describe_tools returns TypeScript signatures of the tools that match', async () => {
    await start();
    const session = host.session({ codeMode: true });
    const found = resultText(
      (await session.call('describe_tools', { query: 'create an issue on github' })).result,
    );
    expect(found).toContain('github_create_issue(input: { title: string; body?: string }): Promise<unknown>');
    expect(found).toContain('await tools.github_create_issue(input)');
    const named = resultText(
      (await session.call('describe_tools', { names: ['slack_post_message', 'nope'] })).result,
    );
    expect(named).toContain('slack_post_message(input: { channel: string; text: string })');
    expect(named).toContain('Not callable in this session: nope');
  });

  it('reports a syntax error and a thrown error as is_error results', async () => {
    await start();
    const session = host.session({ codeMode: true });
    const syntax = await run(session, `return (;`);
    expect(syntax.isError).toBe(true);
    expect(resultText(syntax)).toMatch(/SyntaxError: Unexpected token.*run_code\.js:1:/);
    const thrown = await run(session, `console.log('before'); throw new TypeError('bad thing');`);
    expect(thrown.isError).toBe(true);
    expect(resultText(thrown)).toContain('before');
    expect(resultText(thrown)).toContain('TypeError: bad thing');
  });

  it('run_code cannot call itself from a script', async () => {
    await start();
    const session = host.session({ codeMode: true });
    const result = await run(session, `return await tools.run_code({ code: 'return 1' });`);
    expect(result.isError).toBe(true);
    expect(resultText(result)).toContain('Tool "run_code" cannot be called from run_code');
  });
});
