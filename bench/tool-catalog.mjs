// Builds the evaluation catalogue for tool search: the tools that real MCP servers published on the
// npm registry list, as they list them (name, description, inputSchema). It installs the servers
// into a temporary folder (never into this repository, never as dependencies), starts each over
// stdio with the MCP SDK client, calls tools/list and writes bench/fixtures/tool-catalog.json.
//
//   node bench/tool-catalog.mjs            (needs the npm registry; takes a minute or two)
//
// Install scripts are skipped (--ignore-scripts): no server needs one to list its tools, and it keeps
// browser downloads (Playwright) and anything else out. Servers that refuse to start without a token
// get an obviously fake one (listed in FAKE_ENV below and in the JSON header); no request ever leaves
// the machine, since only tools/list is called.
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const OUT = path.join(here, 'fixtures', 'tool-catalog.json');

/** server id → package@version, the bin to run (relative to node_modules/.bin), args, fake env. */
const SERVERS = [
  {
    id: 'filesystem',
    pkg: '@modelcontextprotocol/server-filesystem@2026.8.31',
    bin: 'mcp-server-filesystem',
    args: ['{tmp}'],
  },
  {
    id: 'everything',
    pkg: '@modelcontextprotocol/server-everything@2026.8.31',
    bin: 'mcp-server-everything',
    args: ['stdio'],
  },
  { id: 'memory', pkg: '@modelcontextprotocol/server-memory@2026.8.31', bin: 'mcp-server-memory' },
  {
    id: 'github',
    pkg: '@modelcontextprotocol/server-github@2025.4.8',
    bin: 'mcp-server-github',
    env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'fake-token' },
  },
  {
    id: 'gitlab',
    pkg: '@modelcontextprotocol/server-gitlab@2025.4.25',
    bin: 'mcp-server-gitlab',
    env: { GITLAB_PERSONAL_ACCESS_TOKEN: 'fake-token' },
  },
  {
    id: 'slack',
    pkg: '@modelcontextprotocol/server-slack@2025.4.25',
    bin: 'mcp-server-slack',
    env: { SLACK_BOT_TOKEN: 'xoxb-fake', SLACK_TEAM_ID: 'T00000000' },
  },
  {
    id: 'google-maps',
    pkg: '@modelcontextprotocol/server-google-maps@0.6.2',
    bin: 'mcp-server-google-maps',
    env: { GOOGLE_MAPS_API_KEY: 'fake-key' },
  },
  {
    id: 'brave-search',
    pkg: '@modelcontextprotocol/server-brave-search@0.6.2',
    bin: 'mcp-server-brave-search',
    env: { BRAVE_API_KEY: 'fake-key' },
  },
  {
    id: 'sequential-thinking',
    pkg: '@modelcontextprotocol/server-sequential-thinking@2026.8.31',
    bin: 'mcp-server-sequential-thinking',
  },
  { id: 'playwright', pkg: '@playwright/mcp@0.0.83', bin: 'playwright-mcp', args: ['--headless'] },
  {
    id: 'notion',
    pkg: '@notionhq/notion-mcp-server@2.5.2',
    bin: 'notion-mcp-server',
    env: { NOTION_TOKEN: 'ntn_fake' },
  },
  {
    id: 'git',
    pkg: '@cyanheads/git-mcp-server@2.15.3',
    bin: 'git-mcp-server',
    env: { MCP_TRANSPORT_TYPE: 'stdio', MCP_LOG_LEVEL: 'error' },
  },
];

const tmp = await fs.mkdtemp(path.join(tmpdir(), 'tool-catalog-'));
try {
  await fs.writeFile(path.join(tmp, 'package.json'), '{"private":true}');
  const pkgs = SERVERS.map((s) => s.pkg);
  console.error(`installing ${pkgs.length} servers into ${tmp} …`);
  execFileSync(
    'npm',
    ['install', '--prefix', tmp, '--no-save', '--ignore-scripts', '--no-audit', '--no-fund', ...pkgs],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );

  const tools = [];
  const servers = [];
  for (const s of SERVERS) {
    const command = path.join(tmp, 'node_modules', '.bin', s.bin);
    const args = (s.args ?? []).map((a) => a.replaceAll('{tmp}', tmp));
    const transport = new StdioClientTransport({
      command,
      args,
      cwd: tmp,
      env: { PATH: process.env.PATH ?? '', HOME: tmp, ...(s.env ?? {}) },
      stderr: 'ignore',
    });
    const client = new Client({ name: 'toolhost-tool-catalog', version: '0.0.0' });
    try {
      await client.connect(transport, { timeout: 30_000 });
      const listed = [];
      let cursor;
      do {
        const page = await client.listTools(cursor ? { cursor } : {}, { timeout: 30_000 });
        listed.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor);
      for (const t of listed) {
        tools.push({
          server: s.id,
          name: t.name,
          ...(t.title ? { title: t.title } : {}),
          description: t.description ?? '',
          inputSchema: t.inputSchema,
        });
      }
      servers.push({
        id: s.id,
        package: s.pkg,
        tools: listed.length,
        ...(s.env ? { fakeEnv: Object.keys(s.env) } : {}),
      });
      console.error(`${s.id}: ${listed.length} tools`);
    } catch (err) {
      console.error(`${s.id}: FAILED (${err instanceof Error ? err.message : String(err)}) — left out`);
    } finally {
      await client.close().catch(() => {});
    }
  }

  const out = {
    $comment:
      'Listed tool metadata (tools/list) of real MCP servers from the npm registry, for evaluating tool search. ' +
      'Regenerate with `node bench/tool-catalog.mjs`. Servers that insist on a token got a fake one (fakeEnv); ' +
      'only tools/list was called.',
    generatedBy: 'bench/tool-catalog.mjs',
    servers,
    tools,
  };
  await fs.mkdir(path.dirname(OUT), { recursive: true });
  await fs.writeFile(OUT, `${JSON.stringify(out, null, 1)}\n`);
  console.error(
    `${tools.length} tools from ${servers.length} servers → ${path.relative(process.cwd(), OUT)}`,
  );
} finally {
  await fs.rm(tmp, { recursive: true, force: true });
}
