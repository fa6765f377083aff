// Context economy: tokens of tool definitions a model gets each turn, by client shape and deferral
// mode, over the catalogue of 166 real MCP tools (bench/lib/catalog-host.mjs), then a multi-step
// task done with direct tool calls and with code mode. Counted with a real BPE tokenizer
// (bench/lib/tokens.mjs) over the JSON each client receives. Run after `npm run build`:
//   node --no-node-snapshot bench/context-tokens.mjs
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHost } from '@toolhost/host';
import { createCatalogHost } from './lib/catalog-host.mjs';
import { catalog, queries, recall } from './lib/search-recall.mjs';
import {
  jsonTokens,
  loadedDefinitionTokens,
  sentDefinitionTokens,
  TOKENIZER,
  tokens,
} from './lib/tokens.mjs';

const GOAL = 5000;
const fmt = (n) => n.toLocaleString('en-US');
const mcpList = (list) => ({ tools: list });
/** What deferral.ts's estimateTokens measures of a descriptor. */
const toAnthropicShape = (d) => ({ name: d.name, description: d.description, input_schema: d.inputSchema });

console.log(`tokenizer: ${TOKENIZER}; JSON as each client receives it`);
console.log(`catalogue: ${catalog.tools.length} tools from ${catalog.servers.length} MCP servers\n`);

// --- 1. Tool definitions per turn ---------------------------------------------------------------
const SHAPES = [
  ['anthropic', ['none', 'meta', 'native-bm25', 'native-regex', 'client'], (l) => l],
  ['openai-responses', ['none', 'meta', 'hosted', 'client'], (l) => l],
  ['mcp', ['none', 'meta'], mcpList],
];
const CONFIGS = [
  ['tools.defer: ["*"]', { tools: { defer: ['*'] } }],
  ['tools.catalog.autoBudgetTokens: 5000', { tools: { catalog: { autoBudgetTokens: GOAL } } }],
  [
    'tools.defer: ["*"], catalog.always: ["group:mcp:filesystem"]',
    { tools: { defer: ['*'], catalog: { always: ['group:mcp:filesystem'] } } },
  ],
];

function row(label, list, wrap, reachable) {
  const loaded = loadedDefinitionTokens(list, wrap);
  const sent = sentDefinitionTokens(list, wrap);
  const ok = loaded <= GOAL && reachable === catalog.tools.length ? 'yes' : 'no';
  console.log(
    `  ${label.padEnd(30)} ${fmt(loaded).padStart(7)} tokens/turn  (request ${fmt(sent).padStart(6)})  reachable ${reachable}/${catalog.tools.length}  ≤${fmt(GOAL)}+all reachable: ${ok}`,
  );
}

/** Catalogue tools a session's model can reach: in its list, or deferred and found by a search. */
function reachable(session, list) {
  const names = new Set(session.deferredTools());
  for (const entry of list) if (typeof entry.name === 'string') names.add(entry.name);
  return session.callableDescriptors().filter((d) => names.has(d.name)).length;
}

{
  const host = await createCatalogHost();
  const session = host.session();
  console.log('tool definitions per turn, nothing deferred (deferral: none):');
  for (const [shape, , wrap] of SHAPES) {
    const list = session.tools(shape, { deferral: 'none' });
    row(shape, list, wrap, reachable(session, list));
  }
  // tools.catalog.autoBudgetTokens decides on an estimate (JSON length / 4, deferral.ts): how close.
  const estimate = session
    .callableDescriptors()
    .reduce((n, d) => n + Math.ceil(JSON.stringify(toAnthropicShape(d)).length / 4), 0);
  const counted = session.callableDescriptors().reduce((n, d) => n + jsonTokens(toAnthropicShape(d)), 0);
  console.log(
    `  autoBudgetTokens' estimate (JSON length / 4) of the same tools: ${fmt(estimate)}; o200k_base, tool by tool: ${fmt(counted)}`,
  );
  await host.close();
}
for (const [label, config] of CONFIGS) {
  const host = await createCatalogHost(config);
  const session = host.session();
  console.log(`\ndeferral on, ${label} (${session.deferredTools().length} deferred):`);
  for (const [shape, modes, wrap] of SHAPES) {
    for (const mode of modes.filter((m) => m !== 'none')) {
      const list = session.tools(shape, { deferral: mode });
      row(`${shape} ${mode}`, list, wrap, reachable(session, list));
    }
  }
  await host.close();
}
{
  const host = await createCatalogHost();
  const session = host.session({ codeMode: true });
  console.log('\ncode mode (run_code + describe_tools; every tool callable from a script):');
  for (const [shape, , wrap] of SHAPES) {
    const list = session.tools(shape, { deferral: 'none' });
    row(`${shape} code mode`, list, wrap, session.callableDescriptors().length);
  }
  await host.close();
}
{
  // Meta mode grows the list by what searches load: the cost of one search, and of later turns.
  const host = await createCatalogHost({ tools: { defer: ['*'] } });
  const session = host.session();
  const before = loadedDefinitionTokens(session.tools('anthropic'));
  const found = await session.dispatch({
    type: 'tool_use',
    id: 'toolu_search_1',
    name: 'tool_search',
    input: { query: 'create a github issue' },
  });
  const after = loadedDefinitionTokens(session.tools('anthropic'));
  console.log(
    `\nanthropic meta, one tool_search ("create a github issue", ${session.loadedTools().length} tools loaded): ` +
      `result ${fmt(jsonTokens(found))} tokens once; list ${fmt(before)} → ${fmt(after)} tokens/turn after`,
  );
  const index = { search: (query, limit) => session.search(query, limit) };
  const r = recall(index);
  console.log(
    `search (session.search over the ${catalog.tools.length} tools, ${queries.length} requests): recall@1 ${r.at1}  recall@5 ${r.at5}`,
  );
  await host.close();
}

// --- 2. A multi-step task: direct tool calls vs code mode ----------------------------------------
const WORD = 'kestrel';
const FILES = 20;
const MENTIONS = new Set([3, 7, 11, 12, 18]);
const VOCABULARY =
  'the a report meeting budget river station window quarterly morning project review draft north harbour ' +
  'signal garden ledger copper lantern orchard market ticket winter summary notes office invoice bridge'.split(
    ' ',
  );

/** A seeded PRNG (mulberry32): the files are the same on every run. */
function prng(seed) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function writeFiles(dir) {
  const random = prng(14);
  const names = [];
  for (let i = 1; i <= FILES; i++) {
    const lines = [];
    for (let l = 0; l < 12; l++) {
      const words = Array.from({ length: 12 }, () => VOCABULARY[Math.floor(random() * VOCABULARY.length)]);
      if (MENTIONS.has(i) && l === 6) words[5] = WORD;
      lines.push(`${words.join(' ')}.`);
    }
    const name = `note-${String(i).padStart(2, '0')}.txt`;
    writeFileSync(join(dir, name), `${lines.join('\n')}\n`);
    names.push(name);
  }
  return names;
}

const mentions = (text) => new RegExp(`\\b${WORD}\\b`, 'i').test(text);
const resultText = (block) => block.content.map((c) => c.text ?? '').join('\n');

/**
 * Runs a fixed script of model turns against a session: each turn is the assistant content the
 * "model" sends, made from what it has seen; tool_use blocks are answered by the real session.
 * Counts what enters the context (the prompt, every tool_use and tool_result block, the answer),
 * the definitions sent with each request, and the input a request re-reads (history, no cache).
 */
async function runLoop(session, prompt, turns) {
  const definitions = loadedDefinitionTokens(session.tools('anthropic'));
  let history = tokens(prompt);
  let entered = history;
  let processed = 0;
  let requests = 0;
  let seen = [];
  for (const turn of turns) {
    requests++;
    processed += definitions + history;
    const content = turn(seen);
    const added = jsonTokens(content);
    entered += added;
    history += added;
    const uses = content.filter((b) => b.type === 'tool_use');
    if (uses.length === 0) return { definitions, requests, entered, processed, answer: content[0].text };
    seen = await session.dispatchAll(content);
    const back = jsonTokens(seen);
    entered += back;
    history += back;
  }
  throw new Error('the scripted model never answered');
}

const dir = mkdtempSync(join(tmpdir(), 'toolhost-tokens-task-'));
try {
  const names = writeFiles(dir);
  const expected = names.filter((_, i) => MENTIONS.has(i + 1));
  const host = await createHost({ root: dir, configFile: false, pluginsDir: false });
  const prompt = `Read the ${FILES} text files in the workspace and tell me which mention the word "${WORD}".`;
  const answerOf = (list) => [{ type: 'text', text: `These files mention "${WORD}": ${list.join(', ')}.` }];
  let id = 0;
  const use = (name, input) => ({
    type: 'tool_use',
    id: `toolu_sim_${String(++id).padStart(3, '0')}`,
    name,
    input,
  });
  const listed = (seen) => resultText(seen[0]).split('\n');
  const matching = (seen, files) => files.filter((_, i) => mentions(resultText(seen[i])));

  const direct = host.session();
  let files = [];
  const parallel = await runLoop(direct, prompt, [
    () => [use('ls', {})],
    (seen) => {
      files = listed(seen);
      return files.map((path) => use('read', { path }));
    },
    (seen) => answerOf(matching(seen, files)),
  ]);
  const found = [];
  const sequential = await runLoop(direct, prompt, [
    () => [use('ls', {})],
    ...names.map((_, i) => (seen) => {
      if (i === 0) files = listed(seen);
      else if (mentions(resultText(seen[0]))) found.push(files[i - 1]);
      return [use('read', { path: files[i] })];
    }),
    (seen) => {
      if (mentions(resultText(seen[0]))) found.push(files[files.length - 1]);
      return answerOf(found);
    },
  ]);

  const SCRIPT = [
    `const names = (await tools.ls({})).split('\\n').filter((n) => n.endsWith('.txt'));`,
    'const texts = await Promise.all(names.map((path) => tools.read({ path })));',
    `return names.filter((n, i) => /\\b${WORD}\\b/i.test(texts[i]));`,
  ].join('\n');
  const code = host.session({ codeMode: true });
  const coded = await runLoop(code, prompt, [
    () => [use('describe_tools', { names: ['ls', 'read'] })],
    () => [use('run_code', { code: SCRIPT })],
    (seen) => {
      const text = resultText(seen[0]);
      if (seen[0].is_error) throw new Error(`run_code failed: ${text}`);
      return answerOf(JSON.parse(text.slice(text.indexOf('Returned:') + 'Returned:'.length)));
    },
  ]);
  await host.close();

  for (const [label, run] of [
    ['direct, parallel', parallel],
    ['direct, sequential', sequential],
    ['code mode', coded],
  ]) {
    if (run.answer !== answerOf(expected)[0].text) throw new Error(`${label}: wrong answer "${run.answer}"`);
  }
  const total = (run) => run.entered + run.definitions * run.requests;
  console.log(
    `\ntask: read ${FILES} files (${names.length} written, ${expected.length} mention "${WORD}") and say which mention it;` +
      '\n  the model turns are fixed scripts (no model is called); tool calls run for real on the built-in tools',
  );
  for (const [label, run, how] of [
    ['direct, parallel', parallel, 'ls, then 20 reads in one turn, then the answer'],
    ['direct, sequential', sequential, 'ls, then one read per turn, then the answer'],
    ['code mode', coded, 'describe_tools, one run_code, then the answer'],
  ]) {
    console.log(
      `  ${label.padEnd(19)} ${String(run.requests).padStart(2)} requests (${how}): ` +
        `context ${fmt(run.entered)} + definitions ${fmt(run.definitions)} × ${run.requests} = ${fmt(total(run))} tokens; ` +
        `input re-read over the loop ${fmt(run.processed)}`,
    );
  }
  const ratio = (a, b) => `${(total(a) / total(b)).toFixed(1)}×`;
  console.log(
    `  direct / code mode: ${ratio(parallel, coded)} (parallel), ${ratio(sequential, coded)} (sequential); ` +
      `re-read ${(parallel.processed / coded.processed).toFixed(1)}× / ${(sequential.processed / coded.processed).toFixed(1)}×`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
