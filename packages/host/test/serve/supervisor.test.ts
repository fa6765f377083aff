import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SCRIPT_IN_FLIGHT } from '../../src/serve/in-flight-slots.js';
import { CRASHES_ENV, RESTART_ENV, SANDBOX_ENV } from '../../src/serve/reports.js';
import { supervise } from '../../src/serve/supervisor.js';

/** The built slot writer (the children are plain Node scripts; `npm run build` first). */
const SLOTS_JS = fileURLToPath(new URL('../../dist/serve/in-flight-slots.js', import.meta.url));

/**
 * Fake `serve` children: small scripts that report on fd 3 and record requests in flight on fd 4
 * (`started(id, pluginId)`) as a real one does, then end the way each test needs. Each start
 * appends its environment to `starts.jsonl`.
 */
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'toolhost-supervisor-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function child(body: string): Promise<string> {
  const file = path.join(dir, 'child.mjs');
  await writeFile(
    file,
    `import { appendFileSync, writeSync } from 'node:fs';
import { InFlightSlots } from ${JSON.stringify(SLOTS_JS)};
const slots = new InFlightSlots();
const report = (line) => writeSync(3, JSON.stringify(line) + '\\n');
appendFileSync(${JSON.stringify(path.join(dir, 'starts.jsonl'))}, JSON.stringify({
  restart: process.env.${RESTART_ENV}, crashes: process.env.${CRASHES_ENV}, sandbox: process.env.${SANDBOX_ENV},
}) + '\\n');
${body}
`,
  );
  return file;
}

async function starts(): Promise<{ restart: string; crashes: string; sandbox: string }[]> {
  const text = await readFile(path.join(dir, 'starts.jsonl'), 'utf8');
  return text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
}

function run(file: string, crashLoop = { crashes: 3, windowMs: 60_000 }) {
  const lines: string[] = [];
  const answers: string[] = [];
  const supervisor = supervise({
    command: process.execPath,
    args: [file],
    log: (line) => lines.push(line),
    answer: (text) => answers.push(text),
    backoff: { initialMs: 1, maxMs: 4 },
    crashLoop,
  });
  return { supervisor, lines, answers };
}

describe('the serve supervisor', () => {
  it('does not restart a child that exits cleanly, and ends with its code 0', async () => {
    const { supervisor, lines } = run(await child("report({ t: 'ready' }); process.exit(0);"));
    expect(await supervisor.done).toBe(0);
    expect(await starts()).toHaveLength(1);
    expect(lines).toEqual([]);
  });

  it('restarts a child that dies abnormally, and stops after its crash-loop limit with a clear message', async () => {
    const { supervisor, lines } = run(
      await child("report({ t: 'ready' }); process.kill(process.pid, 'SIGKILL');"),
    );
    expect(await supervisor.done).toBe(1);
    expect((await starts()).map((s) => s.restart)).toEqual(['0', '1', '2']);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(
      /died \(signal SIGKILL\) with no request in flight.*Restarting it in 1 ms \(restart 1\)/,
    );
    expect(lines[2]).toMatch(/crashed 3 times within 60 s: giving up; the client's connection ends now/);
  });

  it('does not restart a child that fails before it serves (a bad config would fail again)', async () => {
    const { supervisor, lines } = run(await child('process.exit(2);'));
    expect(await supervisor.done).toBe(2);
    expect(await starts()).toHaveLength(1);
    expect(lines).toEqual(['toolhost serve: the serve process ended before it served (exit code 2)']);
  });

  it('passes crashes charged to one plugin on to the next child, and forgets them once it is quarantined', async () => {
    const file = await child(`
const restart = Number(process.env.${RESTART_ENV});
report({ t: 'ready' });
if (restart === 3) process.exit(0);
if (restart === 2) {
  report({ t: 'quarantined', pluginId: 'bad' });
  slots.started(1, 'bad');
  process.kill(process.pid, 'SIGKILL'); // killed from outside: nobody is charged
}
// Two plugins in flight charge nobody: an innocent neighbour is never blamed.
slots.started(1, 'bad');
if (restart === 1) slots.started(2, 'good');
process.kill(process.pid, 'SIGABRT');
`);
    const { supervisor, lines } = run(file, { crashes: 10, windowMs: 60_000 });
    expect(await supervisor.done).toBe(0);
    const charges = (await starts()).map((s) => JSON.parse(s.crashes));
    expect(charges).toEqual([
      {},
      { bad: { count: 1, message: 'the serve process died (signal SIGABRT)' } },
      { bad: { count: 1, message: 'the serve process died (signal SIGABRT)' } },
      {},
    ]);
    expect(lines[0]).toMatch(
      /the serve process died \(signal SIGABRT\) while plugin "bad" ran; its 1 request\(s\) in flight were answered with an error/,
    );
    expect(lines[1]).toMatch(/while plugins "bad", "good" ran; its 2 request\(s\)/);
  });

  it('charges no plugin for a crash while a run_code script was in flight beside it', async () => {
    const file = await child(`
report({ t: 'ready' });
if (Number(process.env.${RESTART_ENV}) === 2) process.exit(0);
slots.started(1, 'innocent');
slots.started(2, ${JSON.stringify(SCRIPT_IN_FLIGHT)});
process.kill(process.pid, 'SIGABRT');
`);
    const { supervisor, answers } = run(file);
    expect(await supervisor.done).toBe(0);
    expect((await starts()).map((s) => JSON.parse(s.crashes))).toEqual([{}, {}, {}]);
    expect(answers[0]).toContain('(plugins running: innocent, a run_code script)');
  });

  it('answers every request the dead child had in flight, after a newline, naming the plugins running', async () => {
    const file = await child(`
report({ t: 'ready' });
if (Number(process.env.${RESTART_ENV}) === 1) process.exit(0);
slots.started(1, 'bad');
slots.started('ünï "id"', undefined);
slots.started(3, 'good');
slots.answered(3);
process.kill(process.pid, 'SIGABRT');
`);
    const { supervisor, answers } = run(file);
    expect(await supervisor.done).toBe(0);
    expect(answers).toHaveLength(1);
    const [first, ...lines] = (answers[0] ?? '').split('\n');
    expect(first).toBe('');
    expect(lines.pop()).toBe('');
    const message =
      'toolhost serve crashed: the serve process died (signal SIGABRT) while this request was running ' +
      '(plugins running: bad); the server restarts and serves again: call again';
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      { jsonrpc: '2.0', id: 1, error: { code: -32603, message } },
      { jsonrpc: '2.0', id: 'ünï "id"', error: { code: -32603, message } },
    ]);
  });

  it('restarts a child that a plugin crashed while loading with isolates in an executor process', async () => {
    const file = await child(`
if (process.env.${SANDBOX_ENV} === 'inline') process.kill(process.pid, 'SIGABRT');
report({ t: 'ready' });
process.exit(0);
`);
    const { supervisor, lines } = run(file);
    expect(await supervisor.done).toBe(0);
    expect((await starts()).map((s) => s.sandbox)).toEqual(['inline', 'process']);
    expect(lines[0]).toMatch(/while loading plugins; it restarts with isolates in an executor process/);
  });

  it('passes a signal on and does not restart after it', async () => {
    const file = await child("report({ t: 'ready' }); setInterval(() => {}, 1000);");
    const { supervisor } = run(file);
    while (supervisor.pid === undefined || (await starts().catch(() => [])).length === 0) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    supervisor.stop('SIGTERM');
    expect(await supervisor.done).toBe(143);
    expect(await starts()).toHaveLength(1);
  });
});
