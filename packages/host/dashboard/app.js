/**
 * The dev dashboard: the plan, the sources, pending approvals and a live event stream, from the
 * JSON API and the SSE stream of `toolhost dev` on the same origin. No framework: the state is
 * re-fetched whole on each rebuild, the tool table is built once per state version (the filter
 * toggles a class), and events are appended in one batch per animation frame.
 */

import { approvalEvent, renderApprovals, tickWaited } from './approvals.js';
import { fetchJson, fill, h, installLazyFolds } from './dom.js';
import { renderEvent, trimEvents } from './events.js';
import { renderSources } from './sources.js';
import { adoptToken, withToken } from './token.js';
import { showTool } from './tool.js';

const $ = (id) => document.getElementById(id);

const app = {
  /** The last `/api/state`. */
  state: undefined,
  /** The state version the tool rows were built for. */
  rowsVersion: undefined,
  /** name → `<tr>`, for the filter. */
  rows: new Map(),
  /** Pending approvals by id. */
  approvals: new Map(),
};

// ---- state -----------------------------------------------------------------------------------

let fetching;
let fetchAgain = false;

/** Fetches `/api/state` and renders it; a rebuild during a fetch fetches once more after it. */
function refresh() {
  if (fetching) {
    fetchAgain = true;
    return fetching;
  }
  fetching = (async () => {
    try {
      do {
        fetchAgain = false;
        const state = await fetchJson('/api/state');
        render(state);
      } while (fetchAgain);
      $('load-error').hidden = true;
    } catch (error) {
      fill($('load-error'), `Could not load the state: ${error.message}`).hidden = false;
    } finally {
      fetching = undefined;
    }
  })();
  return fetching;
}

function render(state) {
  app.state = state;
  // The project's folder name; its whole path on hover (screenshots carry no machine's paths).
  const root = state.root ?? '';
  $('root').textContent = root.split(/[\\/]/).filter(Boolean).pop() ?? root;
  $('root').title = root;
  $('version').textContent = `plan v${state.version}`;
  renderTools(state);
  renderHidden(state.tools?.hidden ?? []);
  renderSources(state);
  app.approvals = new Map((state.approvals ?? []).map((a) => [a.id, a]));
  renderApprovals(app.approvals);
  route();
}

// ---- the plan ----------------------------------------------------------------------------------

function annotationBadges(annotations) {
  if (!annotations) return [];
  const badges = [];
  for (const [key, value] of Object.entries(annotations)) {
    if (key === 'title') continue;
    if (value === true) badges.push(h('span', { class: `badge ann ann-${key}` }, key.replace(/Hint$/, '')));
    else if (value === false && (key === 'destructiveHint' || key === 'openWorldHint'))
      badges.push(h('span', { class: 'badge ann ann-false' }, `not ${key.replace(/Hint$/, '')}`));
  }
  return badges;
}

function toolRow(tool) {
  const search =
    `${tool.name}\n${tool.title ?? ''}\n${tool.description ?? ''}\n${tool.owner ?? ''}`.toLowerCase();
  const tr = h(
    'tr',
    { dataset: { name: tool.name } },
    h(
      'td',
      null,
      h('a', { href: `#/tool/${encodeURIComponent(tool.name)}`, class: 'tool-link' }, tool.name),
      tool.title ? h('div', { class: 'dim' }, tool.title) : null,
    ),
    h('td', null, h('code', null, tool.owner ?? '')),
    h('td', null, h('span', { class: `badge kind-${tool.kind}` }, tool.kind ?? '')),
    h('td', null, annotationBadges(tool.annotations)),
    h(
      'td',
      null,
      h(
        'span',
        { class: `badge ${tool.deferred ? 'deferred' : 'loaded'}` },
        tool.deferred ? 'deferred' : 'loaded',
      ),
    ),
  );
  // Kept on the row itself, so filtering needs no second lookup table.
  tr.searchText = search;
  return tr;
}

/** Builds the table rows once per state version; the filter only toggles classes after that. */
function renderTools(state) {
  const visible = state.tools?.visible ?? [];
  if (app.rowsVersion !== state.version || app.rows.size !== visible.length) {
    const body = document.createDocumentFragment();
    app.rows = new Map();
    for (const tool of visible) {
      const row = toolRow(tool);
      app.rows.set(tool.name, row);
      body.append(row);
    }
    $('tools').tBodies[0].replaceChildren(body);
    app.rowsVersion = state.version;
  }
  applyFilter();
}

function applyFilter() {
  const words = $('filter').value.toLowerCase().split(/\s+/).filter(Boolean);
  let shown = 0;
  for (const row of app.rows.values()) {
    const match = words.every((word) => row.searchText.includes(word));
    // Only touch rows whose state changes: 1,000 rows, one keystroke, few style recalcs.
    if (row.classList.contains('filtered') === match) row.classList.toggle('filtered', !match);
    if (match) shown++;
  }
  for (const item of $('hidden-tools').children) {
    const match = words.every((word) => item.searchText.includes(word));
    item.classList.toggle('filtered', !match);
  }
  const total = app.rows.size;
  $('tool-counts').textContent = words.length === 0 ? `${total} visible` : `${shown} of ${total} visible`;
  $('no-match').hidden = shown > 0 || total === 0;
}

function renderHidden(hidden) {
  $('hidden-count').textContent = `(${hidden.length})`;
  const items = hidden.map((tool) => {
    const li = h(
      'li',
      { class: 'hidden-tool', dataset: { name: tool.name } },
      h('strong', null, tool.name),
      ' ',
      h('code', null, tool.owner ?? ''),
      tool.description ? h('div', { class: 'dim' }, tool.description) : null,
      h(
        'ul',
        { class: 'diagnostics' },
        (tool.diagnostics ?? []).map((d) =>
          h('li', null, h('span', { class: 'badge reason' }, d.reason), ' ', d.message),
        ),
      ),
    );
    li.searchText = `${tool.name}\n${tool.description ?? ''}\n${tool.owner ?? ''}`.toLowerCase();
    return li;
  });
  fill($('hidden-tools'), items.length === 0 ? h('li', { class: 'dim' }, 'none') : items);
  if (items.length === 0) $('hidden-tools').firstChild.searchText = '';
}

// ---- routing -----------------------------------------------------------------------------------

/** `#/tool/<name>` shows a tool's page; anything else the plan. */
function route() {
  const match = /^#\/tool\/(.+)$/.exec(location.hash);
  const toolView = $('tool-view');
  if (!match) {
    toolView.hidden = true;
    $('plan-view').hidden = false;
    return;
  }
  const name = decodeURIComponent(match[1]);
  $('plan-view').hidden = true;
  toolView.hidden = false;
  // A rebuild re-renders the page only when the tool itself changed (a half-filled form survives others).
  const tool = app.state?.tools?.visible?.find((t) => t.name === name);
  const hidden = tool ? undefined : app.state?.tools?.hidden?.find((t) => t.name === name);
  const key = JSON.stringify(tool ?? hidden ?? name);
  if (toolView.dataset.key === key) return;
  toolView.dataset.key = key;
  showTool(toolView, name, tool, hidden, app.state !== undefined);
}

// ---- live events -------------------------------------------------------------------------------

const queue = [];
let scheduled = false;
let eventTotal = 0;
/** callId → its row, to complete a call's start row when it ends. */
const callRows = new Map();

function enqueue(event) {
  queue.push(event);
  if (!scheduled) {
    scheduled = true;
    requestAnimationFrame(flush);
  }
}

/** Renders every queued event in one DOM update, newest first, and trims to the bound. */
function flush() {
  scheduled = false;
  const list = $('events');
  const rows = [];
  let rebuilt = false;
  // In order (a call's end completes the row its start made, maybe in this same batch)…
  for (const event of queue) {
    if (event.type === 'rebuild') rebuilt = true;
    if (event.type === 'approval') approvalEvent(app.approvals, event);
    const row = renderEvent(event, callRows);
    if (row) rows.push(row);
  }
  // …then shown newest first.
  const fresh = document.createDocumentFragment();
  for (let i = rows.length - 1; i >= 0; i--) fresh.append(rows[i]);
  eventTotal += queue.length;
  queue.length = 0;
  list.prepend(fresh);
  trimEvents(list, callRows);
  $('event-count').textContent = `${eventTotal} received, newest first`;
  $('event-count').dataset.total = String(eventTotal);
  renderApprovals(app.approvals);
  if (rebuilt) refresh();
}

function connect() {
  const source = new EventSource(withToken('/api/events'));
  const status = $('connection');
  source.addEventListener('open', () => {
    status.textContent = 'live';
    status.className = 'badge live';
    // Reconnected after the server went away: what we show may be stale.
    if (app.state !== undefined) refresh();
  });
  source.addEventListener('error', () => {
    const closed = source.readyState === EventSource.CLOSED;
    status.textContent = closed ? 'disconnected' : 'reconnecting…';
    status.className = 'badge off';
    // Refused (no token, or one of an earlier run): EventSource gives up without saying why;
    // the state request shows the server's reason in the banner.
    if (closed) refresh();
  });
  // The server drops a page that reads too slowly, saying so; EventSource then reconnects and
  // resumes after the last id it saw. A page closed for a newer one (past the server's cap on
  // streams) is told not to: reconnecting would only close another page in turn.
  source.addEventListener('dropped', (message) => {
    let why = {};
    try {
      why = JSON.parse(message.data);
    } catch {
      // Not JSON: the generic reason below.
    }
    if (why.reconnect === false) {
      source.close();
      status.textContent = 'disconnected';
      status.className = 'badge off';
    }
    enqueue({ type: 'dropped', at: Date.now(), reason: why.reason ?? 'dropped by the server' });
  });
  source.addEventListener('message', (message) => {
    let event;
    try {
      event = JSON.parse(message.data);
    } catch {
      return;
    }
    enqueue(event);
  });
}

// ---- start -------------------------------------------------------------------------------------

// Before any request: they all carry the token.
adoptToken();
$('filter').addEventListener('input', applyFilter);
window.addEventListener('hashchange', route);
installLazyFolds(document.body);
setInterval(() => tickWaited(), 1000);
refresh().then(() => document.documentElement.classList.add('ready'));
connect();
