/** The plan and its changes, for people (tables, lines) and for machines (`ListJson`). */
import * as path from 'node:path';
import type { ToolPlan } from '@toolhost/plugin-sdk';
import { formatExecutor, formatOwner } from '../core/refs.js';
import type { ToolHost } from '../host/host.js';
import type { HostChange } from '../host/types.js';
import type { IsolateStats } from '../sandbox/types.js';
import type { PluginReport } from '../sources/plugins/types.js';
import type { Style } from './io.js';
import { displayLength } from './terminal.js';
import type { ListedIsolates, ListJson } from './types.js';

/** A path as a person at this terminal would type it: relative to the working directory, if not that. */
export function shownPath(file: string): string {
  return path.relative(process.cwd(), file) || file;
}

/** The isolate stats as `list --json` and `doctor` show them: times in seconds, as config sets them. */
export function listedIsolates({ live, maxLive, idleMs, evicted }: IsolateStats): ListedIsolates {
  return { live, maxLive, idleSeconds: idleMs / 1000, evicted };
}

/** `toolhost list --json` of a plan, the plugins' reports and the isolate stats. */
export function listJson(
  plan: ToolPlan,
  plugins: readonly PluginReport[],
  isolates: IsolateStats,
  deferred: ReadonlySet<string> = new Set(),
): Omit<ListJson, 'skills' | 'walls'> {
  return {
    visible: plan.visible.map(({ descriptor, executor }) => ({
      name: descriptor.name,
      description: descriptor.description,
      owner: formatOwner(descriptor.owner),
      kind: executor.kind,
      executor: formatExecutor(executor),
      inputSchema: descriptor.inputSchema,
      ...(deferred.has(descriptor.name) ? { deferred: true as const } : {}),
    })),
    hidden: plan.hidden.map(({ descriptor, diagnostics }) => ({
      name: descriptor.name,
      owner: formatOwner(descriptor.owner),
      diagnostics: diagnostics.map(({ reason, message }) => ({ reason, message })),
    })),
    plugins: plugins.map(({ id, status, diagnostics }) => ({ id, status, diagnostics: [...diagnostics] })),
    isolates: listedIsolates(isolates),
  };
}

/** Columns padded to their widest cell; the last column is not padded. */
export function table(rows: readonly (readonly string[])[], indent = '  '): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, displayLength(cell));
    });
  }
  return rows.map(
    (row) =>
      indent +
      row
        .map((cell, i) =>
          i === row.length - 1 ? cell : cell + ' '.repeat((widths[i] ?? 0) - displayLength(cell)),
        )
        .join('  ')
        .trimEnd(),
  );
}

/** The first line of a description, cut to `max` characters. */
function summary(description: string, max = 60): string {
  const line = (description.split('\n')[0] ?? '').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

/**
 * The plan as tables: visible tools with their executor kind (core, plugin, channel, mcp), owner
 * and executor; hidden ones with their reasons; plugins.
 */
/** The tools a new session of `host` defers (what an MCP client reaches through tool_search). */
export function deferredOf(host: ToolHost): ReadonlySet<string> {
  return new Set(host.session().deferredTools());
}

/**
 * The plan as tables. `deferred`: the visible tools a session defers (a column says which, only
 * when there are some, and a line says how a client reaches them).
 */
export function planLines(
  plan: ToolPlan,
  plugins: readonly PluginReport[],
  style: Style,
  deferred: ReadonlySet<string> = new Set(),
): string[] {
  const lines: string[] = [];
  lines.push(style.bold(`Visible tools (${plan.visible.length})`));
  if (plan.visible.length === 0) lines.push(style.dim('  none'));
  const marked = plan.visible.some(({ descriptor }) => deferred.has(descriptor.name));
  lines.push(
    ...table(
      plan.visible.map(({ descriptor, executor }) => [
        style.green(descriptor.name),
        ...(marked ? [deferred.has(descriptor.name) ? style.yellow('deferred') : ''] : []),
        executor.kind,
        formatOwner(descriptor.owner),
        style.dim(formatExecutor(executor)),
        summary(descriptor.description),
      ]),
    ),
  );
  if (marked) {
    const count = plan.visible.filter(({ descriptor }) => deferred.has(descriptor.name)).length;
    lines.push(
      style.dim(
        `  Deferred (${count}): not listed up front; a client finds them with tool_search and calls them by name or through call_tool (tools.defer, tools.catalog)`,
      ),
    );
  }
  if (plan.hidden.length > 0) {
    lines.push('', style.bold(`Hidden tools (${plan.hidden.length})`));
    lines.push(
      ...table(
        plan.hidden.map(({ descriptor, diagnostics }) => [
          style.yellow(descriptor.name),
          formatOwner(descriptor.owner),
          diagnostics.map((d) => `${d.reason}: ${d.message}`).join('; '),
        ]),
      ),
    );
  }
  if (plugins.length > 0) {
    lines.push('', style.bold(`Plugins (${plugins.length})`));
    lines.push(
      ...table(
        plugins.map((p) => [
          p.id,
          p.status === 'loaded'
            ? style.green(p.status)
            : p.status === 'loading' || p.status === 'disabled'
              ? style.yellow(p.status)
              : style.red(p.status),
          p.diagnostics.join('; '),
        ]),
      ),
    );
  }
  return lines;
}

/** `HH:MM:SS` of a date, local time. */
export function clock(date: Date): string {
  return [date.getHours(), date.getMinutes(), date.getSeconds()]
    .map((n) => String(n).padStart(2, '0'))
    .join(':');
}

/**
 * One rebuild, as `12:00:01 plugins:healthy rebuilt in 132 ms: added healthy_echo2; removed
 * healthy_echo`, then one indented line per newly hidden tool with its reasons. When no tool
 * changed but the code of the `reloaded` plugins did, it says `code reloaded (<ids>)`.
 */
export function changeLines(
  change: HostChange,
  plan: ToolPlan,
  style: Style,
  now = new Date(),
  reloaded: readonly string[] = [],
): string[] {
  const hiddenNow = new Map(plan.hidden.map((e) => [e.descriptor.name, e.diagnostics]));
  const added = change.added.map((name) => (hiddenNow.has(name) ? `${name} (hidden)` : name));
  const visible = change.newlyVisible.filter((name) => !change.added.includes(name));
  const parts = [
    added.length > 0 ? `added ${added.join(', ')}` : '',
    change.removed.length > 0 ? `removed ${change.removed.join(', ')}` : '',
    change.changed.length > 0 ? `changed ${change.changed.join(', ')}` : '',
    visible.length > 0 ? `now visible ${visible.join(', ')}` : '',
    change.newlyHidden.length > 0 ? `now hidden ${change.newlyHidden.map((h) => h.name).join(', ')}` : '',
  ].filter(Boolean);
  const head =
    `${style.dim(clock(now))} ${change.cause} rebuilt in ${Math.round(change.durationMs)} ms: ` +
    (parts.length > 0
      ? parts.join('; ')
      : reloaded.length > 0
        ? `code reloaded (${reloaded.join(', ')})`
        : 'no tool changed');
  const reasons = [
    ...change.newlyHidden.map((h) => [h.name, h.diagnostics] as const),
    ...change.added.flatMap((name) => {
      const diagnostics = hiddenNow.get(name);
      return diagnostics === undefined ? [] : [[name, diagnostics] as const];
    }),
  ].map(
    ([name, diagnostics]) =>
      `  ${style.yellow(name)} hidden: ${diagnostics.map((d) => `${d.reason}: ${d.message}`).join('; ')}`,
  );
  return [head, ...reasons];
}
