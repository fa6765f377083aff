/** One row per live event; a call's start row is completed in place when it ends. */
import { clock, errorLine, folded, h } from './dom.js';

/** Most event rows kept in the page; older ones are dropped (the server keeps its own history). */
export const MAX_EVENT_ROWS = 300;

function diffLine(diff) {
  if (!diff) return null;
  const parts = [];
  for (const key of ['added', 'removed', 'changed']) {
    const names = diff[key] ?? [];
    if (names.length > 0) parts.push(h('span', { class: `diff-${key}` }, `${key} ${names.join(', ')}`));
  }
  if (parts.length === 0) return h('span', { class: 'dim' }, 'no tool changed');
  return parts.flatMap((part, i) => (i === 0 ? [part] : ['; ', part]));
}

function row(event, kind, ...body) {
  return h(
    'li',
    { class: `event ${kind}`, dataset: { seq: event.seq ?? '', type: event.type ?? '' } },
    h('time', { class: 'dim' }, clock(event.at ?? Date.now())),
    ' ',
    h('span', { class: `badge ${kind}` }, kind),
    ' ',
    body,
  );
}

function callEnd(event) {
  const hooks = event.hooks ?? {};
  return h(
    'span',
    { class: 'call-end' },
    h('span', { class: `badge status-${event.status}` }, event.status ?? 'done'),
    ` in ${Math.round(event.durationMs ?? 0)} ms`,
    hooks.blockedBy ? h('span', { class: 'badge blocked' }, `blocked by ${hooks.blockedBy}`) : null,
    hooks.rewroteBy?.length
      ? h('span', { class: 'badge rewrote' }, `rewritten by ${hooks.rewroteBy.join(', ')}`)
      : null,
    ' ',
    folded(event.result, 'result'),
  );
}

/** The row for an event, or undefined when it only completes a row already shown. */
export function renderEvent(event, callRows) {
  switch (event.type) {
    case 'rebuild':
      return row(
        event,
        'rebuild',
        h(
          'span',
          null,
          `${event.cause ?? 'rebuild'} in ${Math.round(event.durationMs ?? 0)} ms → v${event.version}: `,
        ),
        diffLine(event.diff),
      );
    case 'plugin-error':
      return row(event, 'plugin-error', h('strong', null, `plugin ${event.plugin}: `), errorLine(event));
    case 'config-error':
      return row(event, 'config-error', h('strong', null, 'config: '), errorLine(event));
    case 'call':
      return callEvent(event, callRows);
    case 'approval': {
      const approval = event.approval ?? event;
      return row(
        event,
        'approval',
        h('strong', null, approval.tool ?? ''),
        event.phase === 'decided'
          ? ` ${event.decision} by ${event.by ?? '?'}${event.reason ? ` (${event.reason})` : ''}`
          : ` requested: ${approval.title ?? ''}`,
      );
    }
    case 'dropped':
      return row(event, 'dropped', event.reason);
    default:
      return row(event, 'other', folded(event, event.type ?? 'event'));
  }
}

function callEvent(event, callRows) {
  if (event.phase === 'end') {
    const started = callRows.get(event.callId);
    if (started) {
      started.querySelector('.call-end').replaceWith(callEnd(event));
      started.classList.remove('running');
      started.classList.add(event.status === 'ok' ? 'ok' : 'failed');
      callRows.delete(event.callId);
      return undefined;
    }
    callRows.delete(event.callId);
    return row(
      event,
      'call',
      h('strong', { class: 'call-tool' }, event.tool ?? event.callId ?? ''),
      ' ',
      callEnd(event),
    );
  }
  const li = row(
    event,
    'call',
    h(
      'code',
      { class: 'dim', title: event.sessionId ?? '' },
      `[${String(event.sessionId ?? '').slice(0, 8)}]`,
    ),
    ' ',
    h('span', { class: 'badge source' }, event.source ?? ''),
    ' ',
    event.principal ? h('code', { class: 'principal dim' }, event.principal) : null,
    event.principal ? ' ' : null,
    h('strong', { class: 'call-tool' }, event.tool ?? ''),
    ' ',
    folded(event.input, 'input'),
    ' ',
    h('span', { class: 'call-end dim' }, 'running…'),
  );
  li.classList.add('running');
  li.dataset.callId = event.callId ?? '';
  callRows.set(event.callId, li);
  return li;
}

/** Drops the oldest rows past the bound (and forgets their calls). */
export function trimEvents(list, callRows) {
  while (list.childElementCount > MAX_EVENT_ROWS) {
    const last = list.lastElementChild;
    if (last.dataset.callId) callRows.delete(last.dataset.callId);
    last.remove();
  }
}
