// Side by side, the results of several runs of bench/boundary.mjs (each written with BENCH_JSON):
// every ratio per run with its min–max, so a change is judged against how much the ratios move
// between runs of the same code. Absolute µs and calls/s are shown for the MCP baseline only.
// Each run says how its paths were interleaved (one rotation of all of them, or one per transport:
// bench/boundary.mjs's header); runs interleaved differently are not comparable, and it says so.
// Run: `node bench/boundary-compare.mjs before-1.json before-2.json after-1.json …`
import { readFileSync } from 'node:fs';

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: node bench/boundary-compare.mjs RESULT.json [RESULT.json …] (written by BENCH_JSON)');
  process.exit(2);
}

const runs = files.map((file) => {
  let run;
  try {
    run = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    console.error(`${file}: cannot be read as JSON (${error.message})`);
    process.exit(2);
  }
  if (run?.bench !== 'boundary' || run.format !== 1 || typeof run.paths !== 'object') {
    console.error(`${file}: not a result of bench/boundary.mjs (format 1)`);
    process.exit(2);
  }
  return run;
});

const keys = [...new Set(runs.flatMap((run) => Object.keys(run.paths)))];
const labelOf = (key) => runs.find((run) => run.paths[key])?.paths[key].label ?? key;
const levels = [...new Set(runs.flatMap((run) => Object.keys(run.paths.mcp?.throughput ?? {})))];

function row(label, values, format, goal = '') {
  const present = values.filter((value) => value !== undefined);
  const range =
    present.length === 0 ? '-' : `${format(Math.min(...present))}–${format(Math.max(...present))}`;
  return [label, ...values.map((value) => (value === undefined ? '-' : format(value))), range, goal];
}

function table(title, rows) {
  const header = [title, ...runs.map((_, i) => `run ${i + 1}`), 'min–max', 'goal'];
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((cells) => cells[i].length)));
  for (const cells of all) {
    console.log(
      cells
        .map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i])))
        .join('  ')
        .trimEnd(),
    );
  }
  console.log('');
}

const ratio = (value) => `${value.toFixed(2)}×`;
const micro = (value) => value.toFixed(1);
const perSecond = (value) => Math.round(value).toLocaleString('en-US');

/** Results written before the setting existed ran every path in one rotation. */
const interleavingOf = (run) => run.settings?.interleaving ?? 'all';
runs.forEach((run, i) => {
  const load = run.loadavg?.start?.map((l) => l.toFixed(2)).join(' ') ?? '?';
  console.log(
    `run ${i + 1}: ${files[i]} (commit ${run.commit ?? '?'}, ${run.node}, ${run.startedAt}, load ${load}, ${run.settings?.blocks} blocks, interleaved: ${interleavingOf(run)})`,
  );
});
if (new Set(runs.map(interleavingOf)).size > 1) {
  console.log(
    'warning: these runs interleaved their paths differently (see each run above): their ratios differ by design, not only by noise',
  );
}
console.log('');

table('p50 latency', [
  row(
    'MCP baseline p50 µs',
    runs.map((run) => run.paths.mcp?.latency.p50Us),
    micro,
  ),
  ...keys
    .filter((key) => key !== 'mcp')
    .map((key) => {
      const goal = runs.find((run) => run.paths[key])?.paths[key].latency.goal;
      return row(
        `${labelOf(key)}, ratio`,
        runs.map((run) => run.paths[key]?.latency.p50Ratio),
        ratio,
        goal == null ? '' : `≤ ${goal}×`,
      );
    }),
]);

for (const level of levels) {
  table(`calls/s, ${perSecond(Number(level))} in flight`, [
    row(
      'MCP baseline calls/s',
      runs.map((run) => run.paths.mcp?.throughput[level]?.perSecond),
      perSecond,
    ),
    ...keys
      .filter((key) => key !== 'mcp')
      .map((key) => {
        const goal = runs.find((run) => run.paths[key])?.paths[key].throughput[level]?.goal;
        return row(
          `${labelOf(key)}, ratio`,
          runs.map((run) => run.paths[key]?.throughput[level]?.ratio),
          ratio,
          goal == null ? '' : `≥ ${goal}×`,
        );
      }),
  ]);
}

if (runs.some((run) => run.paths.mcp?.idle !== undefined)) {
  table('p50 of the first call after a pause', [
    row(
      'MCP baseline p50 µs',
      runs.map((run) => run.paths.mcp?.idle?.p50Us),
      micro,
    ),
    ...keys
      .filter((key) => key !== 'mcp')
      .map((key) =>
        row(
          `${labelOf(key)}, ratio`,
          runs.map((run) => run.paths[key]?.idle?.p50Ratio),
          ratio,
        ),
      ),
  ]);
}

table('CPU µs per call, sequential (host + children)', [
  ...keys.map((key) =>
    row(
      labelOf(key),
      runs.map((run) => {
        const cpu = run.paths[key]?.cpuSequential;
        return cpu === undefined ? undefined : cpu.hostUs + cpu.childUs;
      }),
      micro,
    ),
  ),
]);
