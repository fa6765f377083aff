import { watch } from 'node:fs';
import * as path from 'node:path';
import { type AuditFilter, type AuditRecord, matches, readTrail, TrailTail } from '../../audit/read.js';
import { parseCommand, UsageError } from '../args.js';
import { FLAGS } from '../flags.js';
import type { Io } from '../io.js';
import { resolveProject } from '../project.js';
import { EXIT } from '../types.js';

/** One record as a line: time, who, client, tool, and how it ended. */
function line(record: AuditRecord): string {
  const who = record.principal ?? '-';
  if (record.type === 'approval') {
    const decided =
      record.phase === 'decided' ? ` ${String(record.decision)} by ${String(record.by)}` : ' requested';
    return `${record.time} ${who} approval ${record.tool}${decided}`;
  }
  const client = typeof record.client === 'string' ? record.client : '-';
  const approval =
    typeof record.approval === 'object' && record.approval !== null
      ? ` (approval ${String((record.approval as { decision?: unknown }).decision)})`
      : '';
  const ms = typeof record.durationMs === 'number' ? ` ${Math.round(record.durationMs)} ms` : '';
  return `${record.time} ${who} ${client} ${record.tool} ${String(record.status)}${ms}${approval}`;
}

function countOf(flag: string | undefined): number | undefined {
  if (flag === undefined) return undefined;
  const n = Number(flag);
  if (!Number.isInteger(n) || n < 1)
    throw new UsageError(`--limit must be a whole number from 1, not ${JSON.stringify(flag)}`);
  return n;
}

/**
 * `toolhost audit`: the project's audit trail, every serving process's file merged in time
 * order, filtered; the last `--limit` (default 50) records, then with `--follow` each new one
 * as it is written, until interrupted.
 */
export async function audit(argv: readonly string[], io: Io): Promise<number> {
  const { values } = parseCommand('audit', argv, FLAGS.audit.options);
  if (values.type !== undefined && values.type !== 'call' && values.type !== 'approval') {
    throw new UsageError(`--type must be "call" or "approval", not ${JSON.stringify(values.type)}`);
  }
  if (values.since !== undefined && Number.isNaN(Date.parse(values.since))) {
    throw new UsageError(`--since must be a date or time (ISO 8601), not ${JSON.stringify(values.since)}`);
  }
  const filter: AuditFilter = {
    ...(values.principal === undefined ? {} : { principal: values.principal }),
    ...(values.tool === undefined ? {} : { tool: values.tool }),
    ...(values.status === undefined ? {} : { status: values.status }),
    ...(values.type === undefined ? {} : { type: values.type }),
    ...(values.since === undefined ? {} : { since: new Date(values.since).toISOString() }),
  };
  const limit = countOf(values.limit) ?? 50;
  const project = await resolveProject(values, { forHost: false });
  const settings = project.config.ok ? project.config.config.audit : undefined;
  const dir = path.resolve(project.root, settings?.dir ?? path.join('.toolhost', 'audit'));
  const show = (record: AuditRecord) =>
    io.out.write(values.json === true ? `${JSON.stringify(record)}\n` : `${line(record)}\n`);
  const tail = new TrailTail(dir);
  if (values.follow === true) await tail.skipToEnd();
  const { records, skipped } = await readTrail(dir);
  const chosen = records.filter((record) => matches(record, filter));
  for (const record of chosen.slice(-limit)) show(record);
  if (skipped > 0) io.err.write(`toolhost: ${skipped} lines of the trail are not records (cut short?)\n`);
  if (values.follow !== true) {
    if (records.length === 0)
      io.err.write(`toolhost: no audit records in ${path.relative(process.cwd(), dir) || dir}\n`);
    return EXIT.ok;
  }
  await new Promise<void>((resolve) => {
    let reading = Promise.resolve();
    const poll = () => {
      reading = reading.then(async () => {
        for (const record of await tail.read()) if (matches(record, filter)) show(record);
      });
    };
    const watcher = watch(dir, { persistent: true }, poll);
    const stop = () => {
      watcher.close();
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    // Said only once the watch is up, and followed by one read: a record written between the
    // first read and the watch (or by someone who waited for this line) is shown, not lost.
    io.err.write('toolhost: following the trail; Ctrl-C to stop\n');
    poll();
  });
  return EXIT.ok;
}
