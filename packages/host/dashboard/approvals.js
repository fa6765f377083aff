/** Pending approvals, answered from the page with POST /api/approvals/<id>. */
import { fill, folded, h, postJson } from './dom.js';

/** Applies an `approval` event to the pending set. */
export function approvalEvent(pending, event) {
  const approval = event.approval ?? event;
  if (event.phase === 'requested') pending.set(approval.id, approval);
  else if (event.phase === 'decided') pending.delete(approval.id);
}

function waited(approval) {
  return `${Math.max(0, Math.round((Date.now() - approval.requestedAt) / 1000))} s`;
}

/** Updates the "waited" counters once a second (only while something waits). */
export function tickWaited() {
  for (const span of document.querySelectorAll('#approvals .waited')) {
    const at = Number(span.dataset.requestedAt);
    span.textContent = `${Math.max(0, Math.round((Date.now() - at) / 1000))} s`;
  }
}

async function answer(li, id, decision) {
  for (const button of li.querySelectorAll('button')) button.disabled = true;
  const note = li.querySelector('.answer-note');
  try {
    const reply = await postJson(`/api/approvals/${encodeURIComponent(id)}`, {
      decision,
      reason: decision === 'deny' ? 'denied from the dashboard' : undefined,
    });
    note.textContent = reply.answered ? `${decision}: sent` : 'already decided (or timed out)';
    li.classList.add('answered');
  } catch (error) {
    note.textContent = error.message;
    note.classList.add('error');
    for (const button of li.querySelectorAll('button')) button.disabled = false;
  }
}

/** The ids shown, to skip re-rendering an unchanged list; undefined until the first render. */
let shownKey;

/** Renders the pending list; does nothing when the set of ids did not change. */
export function renderApprovals(pending) {
  const key = [...pending.keys()].join('\n');
  if (key === shownKey) return;
  shownKey = key;
  const list = document.getElementById('approvals');
  document.getElementById('approval-count').textContent = `(${pending.size})`;
  document.getElementById('approvals-panel').classList.toggle('has-pending', pending.size > 0);
  if (pending.size === 0) {
    fill(list, h('li', { class: 'dim' }, 'Nothing waits for approval.'));
    return;
  }
  fill(
    list,
    [...pending.values()].map((approval) => {
      const li = h(
        'li',
        {
          class: `approval severity-${approval.severity ?? 'normal'}`,
          dataset: { id: approval.id, tool: approval.tool },
        },
        h(
          'div',
          null,
          h('strong', null, approval.title ?? approval.tool),
          ' ',
          h('span', { class: `badge severity` }, approval.severity ?? ''),
        ),
        h(
          'div',
          null,
          'tool ',
          h('code', null, approval.tool),
          approval.principal ? ' · for ' : null,
          approval.principal ? h('code', { class: 'principal' }, approval.principal) : null,
          ' · waited ',
          h('span', { class: 'waited', dataset: { requestedAt: approval.requestedAt } }, waited(approval)),
        ),
        approval.reason ? h('div', { class: 'dim' }, approval.reason) : null,
        approval.description ? h('div', { class: 'dim' }, approval.description) : null,
        h('div', null, 'input ', folded(approval.input, 'input')),
      );
      li.append(
        h(
          'div',
          { class: 'buttons' },
          h(
            'button',
            {
              type: 'button',
              dataset: { decision: 'allow-once' },
              onclick: () => answer(li, approval.id, 'allow-once'),
            },
            'Allow once',
          ),
          h(
            'button',
            {
              type: 'button',
              dataset: { decision: 'allow-always' },
              onclick: () => answer(li, approval.id, 'allow-always'),
            },
            'Allow always',
          ),
          h(
            'button',
            {
              type: 'button',
              class: 'danger',
              dataset: { decision: 'deny' },
              onclick: () => answer(li, approval.id, 'deny'),
            },
            'Deny',
          ),
          h('span', { class: 'answer-note dim' }),
        ),
      );
      return li;
    }),
  );
}
