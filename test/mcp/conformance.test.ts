import { execFile } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createHost, type McpHttpServer, serveHttp, type ToolHost } from '@toolhost/host';
import { defineTool } from '@toolhost/plugin-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';

/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, pre-release line)
 * against `toolhost serve --http`, on both revisions, with the suite's test tools written as a
 * plugin (`test/fixtures/plugins/conformance`) and its one host-side hook
 * (`test_trigger_tool_change`, which changes the tool list) as a custom tool; its one prompt
 * (`test_input_required_result_prompt`) through serveHttp's `prompts` option.
 */

const here = path.dirname(fileURLToPath(import.meta.url));
const fixture = path.resolve(here, '../fixtures/plugins/conformance');
const require = createRequire(import.meta.url);
const CONFORMANCE_BIN = path.join(
  path.dirname(require.resolve('@modelcontextprotocol/conformance/package.json')),
  'dist',
  'index.js',
);
const run = promisify(execFile);

/** Scenarios of the 2025-11-25 revision a tool host answers. */
const SCENARIOS_2025 = [
  'server-initialize',
  'server-session-lifecycle',
  'logging-set-level',
  'ping',
  'tools-list',
  'tools-call-simple-text',
  'tools-call-image',
  'tools-call-audio',
  'tools-call-embedded-resource',
  'tools-call-mixed-content',
  'tools-call-with-logging',
  'tools-call-error',
  'tools-call-with-progress',
  'dns-rebinding-protection',
  'server-sse-multiple-streams',
];

/** The 2026-07-28 groups of the issue: stateless core, tools, caching, headers, DNS rebinding. */
const SCENARIOS_2026 = [
  'server-stateless',
  'tools-list',
  'tools-call-simple-text',
  'tools-call-image',
  'tools-call-audio',
  'tools-call-embedded-resource',
  'tools-call-mixed-content',
  'tools-call-error',
  'tools-call-with-progress',
  'caching',
  'http-header-validation',
  'http-custom-header-server-validation',
  'dns-rebinding-protection',
  'input-required-result-basic-elicitation',
  'input-required-result-basic-sampling',
  'input-required-result-basic-list-roots',
  'input-required-result-request-state',
  'input-required-result-multiple-input-requests',
  'input-required-result-multi-round',
  'input-required-result-missing-input-response',
  'input-required-result-non-tool-request',
  'input-required-result-result-type',
  'input-required-result-unsupported-methods',
  'input-required-result-tampered-state',
  'input-required-result-capability-check',
  'input-required-result-ignore-extra-params',
  'input-required-result-validate-input',
];

/**
 * Checks that fail today, by scenario, each with why. The test asserts the exact list, so a fix
 * (or a new failure) shows up here.
 */
const KNOWN_FAILURES: Record<string, readonly string[]> = {};

/** One check of a scenario, as the CLI saves it (`checks.json`). */
interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

/** The directory `-o` gives a scenario: `server-<scenario>-<ISO time with : and . as ->`. */
const RESULT_DIR = /^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/;

/**
 * Runs every server scenario of a revision in ONE CLI process (`--suite all --spec-version`,
 * which selects the scenarios of that revision, the ones these tests name among them) and reads
 * each scenario's checks from the directory `-o` saves it in. A process per scenario cost about
 * 1.1 s of CPU to start the CLI each, 42 times; the scenarios themselves take a few seconds in
 * all, the ones a tool host does not answer (resources, prompts, completions) failing at once.
 * Each scenario still gets the CLI's own 30 s bound, as with `--scenario`. The exit code is not
 * read: the unanswered scenarios fail it.
 */
async function runRevision(url: string, version: string, cwd: string) {
  const out = path.join(cwd, version);
  const { stderr } = await run(
    process.execPath,
    [CONFORMANCE_BIN, 'server', '--url', url, '--suite', 'all', '--spec-version', version, '-o', out],
    { cwd, maxBuffer: 64 * 1024 * 1024 },
  ).catch((error: { stderr?: string }) => ({ stderr: error.stderr ?? '' }));
  const checks = new Map<string, Check[][]>();
  for (const entry of await readdir(out).catch(() => [])) {
    const name = RESULT_DIR.exec(entry)?.[1];
    if (name === undefined) continue;
    const saved = JSON.parse(await readFile(path.join(out, entry, 'checks.json'), 'utf8')) as Check[];
    checks.set(name, [...(checks.get(name) ?? []), saved]);
  }
  // What went wrong if a scenario saved nothing: a scenario that threw says so on stderr.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the CLI colours its output
  const errors = stderr.replace(/\x1b\[[0-9;]*m/g, '').slice(-4000);
  return { checks, errors };
}

type Revision = Awaited<ReturnType<typeof runRevision>>;

/**
 * One scenario's outcome in a revision's run: the ids of its failed checks, with what each said.
 * A WARNING is a SHOULD the server missed (re-asking for a missing answer, say): counted too.
 */
function scenario(revision: Revision, name: string) {
  const runs = revision.checks.get(name) ?? [];
  expect(
    runs.length,
    `${name} produced ${runs.length} results, not one; the CLI saved ${[...revision.checks.keys()].join(', ') || 'nothing'}; its stderr:\n${revision.errors}`,
  ).toBe(1);
  const bad = (runs[0] ?? []).filter((check) => check.status === 'FAILURE' || check.status === 'WARNING');
  const failed = [...new Set(bad.map((check) => check.id))].sort();
  const details = bad
    .map((check) => `  ${check.id} (${check.status}): ${check.errorMessage ?? ''}`)
    .join('\n');
  return {
    failed,
    message: [`${name}: failed checks ${failed.join(', ') || 'none'}`, details].join('\n').trim(),
  };
}

describe('the MCP conformance suite against toolhost serve --http', () => {
  let root: string;
  let results: string;
  let host: ToolHost;
  let served: McpHttpServer;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'toolhost-conformance-'));
    results = await mkdtemp(path.join(tmpdir(), 'toolhost-conformance-results-'));
    await cp(fixture, path.join(root, 'plugins', 'conformance'), { recursive: true });
    let added: (() => void) | undefined;
    host = await createHost({
      root,
      builtins: false,
      configFile: false,
      cache: false,
      sandbox: 'inline',
      // The suite's client may be sent the test tools' forms (ctx.elicit).
      approvals: { mcpClients: ['conformance-test-client'] },
      customTools: [
        defineTool({
          name: 'test_trigger_tool_change',
          description: 'Adds a tool to the list, or removes the one it added',
          input: z.object({}),
          execute: () => {
            if (added === undefined) {
              added = host.addTool(
                defineTool({
                  name: 'test_added_tool',
                  description: 'Added by test_trigger_tool_change',
                  input: z.object({}),
                  execute: () => 'added',
                }),
              );
            } else {
              added();
              added = undefined;
            }
            return 'the tool list changed';
          },
        }),
      ],
    });
    served = await serveHttp(host, {
      auth: { allowUnauthenticated: true },
      // input-required-result-non-tool-request: a prompt that asks (prompts/get, input_required),
      // served through the embedding option, as an application would add its own.
      prompts: [
        {
          name: 'test_input_required_result_prompt',
          description: 'Asks what context to use, then answers with it',
          get: async (_args, ctx) => {
            const { user_context } = await ctx.ask({
              user_context: {
                method: 'elicitation/create',
                params: {
                  message: 'What context should the prompt use?',
                  requestedSchema: {
                    type: 'object',
                    properties: { context: { type: 'string' } },
                    required: ['context'],
                  },
                },
              },
            });
            const context = (user_context as { content?: { context?: unknown } }).content?.context;
            return {
              messages: [
                { role: 'user', content: { type: 'text', text: `Use this context: ${String(context)}` } },
              ],
            };
          },
        },
      ],
    });
  });

  afterAll(async () => {
    await served?.close();
    await host?.close();
    await rm(root, { recursive: true, force: true });
    await rm(results, { recursive: true, force: true });
  });

  describe('2025-11-25', () => {
    let revision: Revision;
    // A hang guard, not a bound: the CLI bounds each scenario to 30 s itself.
    beforeAll(async () => {
      revision = await runRevision(served.url, '2025-11-25', results);
    }, 600_000);

    it.each(SCENARIOS_2025)('2025-11-25: %s passes', (name) => {
      const outcome = scenario(revision, name);
      expect(outcome.failed, outcome.message).toEqual([]);
    });
  });

  describe('2026-07-28', () => {
    let revision: Revision;
    beforeAll(async () => {
      revision = await runRevision(served.url, '2026-07-28', results);
    }, 600_000);

    it.each(SCENARIOS_2026)('2026-07-28: %s passes (but its known failures)', (name) => {
      const outcome = scenario(revision, name);
      expect(outcome.failed, outcome.message).toEqual([...(KNOWN_FAILURES[name] ?? [])].sort());
    });
  });
});
