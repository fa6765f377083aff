/** Plugins (status, build errors, permissions), MCP servers, skills and isolates. */
import { errorLine, fill, h } from './dom.js';

function permissions(p) {
  if (!p) return null;
  const granted = new Set(p.granted ?? []);
  return h(
    'div',
    { class: 'permissions' },
    h(
      'ul',
      { class: 'asked' },
      (p.asked ?? []).map((perm) =>
        h(
          'li',
          { class: granted.has(perm) ? 'granted' : 'missing' },
          h('code', null, perm),
          granted.has(perm) ? ' granted' : ' not granted',
        ),
      ),
    ),
    (p.missing ?? []).length > 0
      ? h(
          'div',
          { class: 'missing-grants' },
          'To grant, add to toolhost.config.json: ',
          p.missing.map((m) =>
            h('div', null, h('code', null, m.configKey), h('span', { class: 'dim' }, ` (${m.permission})`)),
          ),
        )
      : null,
  );
}

function plugin(p) {
  return h(
    'li',
    { class: `plugin status-${p.status}`, dataset: { id: p.id, status: p.status } },
    h('strong', null, p.id),
    ' ',
    h('span', { class: `badge status-${p.status}` }, p.status),
    ' ',
    h('span', { class: 'dim' }, (p.tools ?? []).length === 0 ? 'no tools' : (p.tools ?? []).join(', ')),
    p.error ? h('div', { class: 'plugin-error' }, errorLine(p.error)) : null,
    permissions(p.permissions),
  );
}

/** `{ rss, heapUsed }` in bytes, as a person reads it. */
function memoryText(memory) {
  const mb = (bytes) => `${(bytes / 1048576).toFixed(1)} MB`;
  return `${mb(memory.rss)} resident, ${mb(memory.heapUsed)} JS heap`;
}

function facts(object) {
  const items = [];
  for (const [key, value] of Object.entries(object ?? {})) {
    if (key === 'memory' && value !== null && typeof value === 'object') {
      items.push(h('dt', null, 'isolates process'), h('dd', { class: 'memory' }, memoryText(value)));
      continue;
    }
    items.push(
      h('dt', null, key),
      h('dd', null, typeof value === 'object' ? JSON.stringify(value) : String(value)),
    );
  }
  return items;
}

export function renderSources(state) {
  const plugins = state.plugins ?? [];
  fill(
    document.getElementById('plugins'),
    plugins.length === 0
      ? h('p', { class: 'dim' }, 'No plugins.')
      : h('ul', { class: 'plugins' }, plugins.map(plugin)),
  );
  const servers = state.mcpServers ?? [];
  fill(
    document.getElementById('mcp-servers'),
    servers.length === 0
      ? h('p', { class: 'dim' }, 'No MCP servers.')
      : h(
          'ul',
          { class: 'mcp-servers' },
          servers.map((s) =>
            h(
              'li',
              { dataset: { id: s.id, state: s.state } },
              h('strong', null, s.id),
              ' ',
              h('span', { class: `badge state-${s.state}` }, s.state),
              ` ${s.tools} tools`,
              s.error ? h('div', { class: 'error' }, s.error) : null,
            ),
          ),
        ),
  );
  const skills = state.skills ?? [];
  fill(
    document.getElementById('skills'),
    skills.length === 0
      ? h('p', { class: 'dim' }, 'No skills.')
      : h(
          'ul',
          { class: 'skills' },
          skills.map((s) =>
            h(
              'li',
              null,
              h('strong', null, s.name),
              ` ${s.description ?? ''}`,
              (s.diagnostics ?? []).map((d) => h('div', { class: 'error' }, `${d.reason}: ${d.message}`)),
              (s.warnings ?? []).map((w) => h('div', { class: 'dim' }, w)),
            ),
          ),
        ),
  );
  fill(document.getElementById('isolates'), [
    ...facts(state.isolates),
    ...(state.hostMemory === undefined
      ? []
      : [h('dt', null, 'host process'), h('dd', { class: 'memory' }, memoryText(state.hostMemory))]),
  ]);
}
