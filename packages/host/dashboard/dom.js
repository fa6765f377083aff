/**
 * Small DOM helpers. Everything the server sends (tool names, descriptions, results) comes from
 * untrusted plugins and MCP servers, so text goes in through `textContent` only — never innerHTML.
 */

import { authHeaders } from './token.js';

/**
 * Makes an element: `h('td', { class: 'x', dataset: { name } }, 'text', child)`. Attributes that
 * start with `on` are listeners; `hidden`, `disabled`, `checked` and `value` are set as properties.
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [key, value] of Object.entries(attrs)) {
      if (value === undefined || value === null || value === false) continue;
      if (key === 'class') el.className = value;
      else if (key === 'dataset') Object.assign(el.dataset, value);
      else if (key.startsWith('on')) el.addEventListener(key.slice(2), value);
      else if (key === 'hidden' || key === 'disabled' || key === 'checked' || key === 'value')
        el[key] = value;
      else el.setAttribute(key, value === true ? '' : String(value));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(typeof child === 'string' || typeof child === 'number' ? String(child) : child);
  }
}

/** Replaces the children of `el`. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** `12:00:01` for an epoch ms. */
export function clock(at) {
  const d = new Date(at);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

/** `file:line:column` of an error that names them, else ''. */
export function where(error) {
  if (!error || typeof error.file !== 'string') return '';
  let at = error.file;
  if (typeof error.line === 'number') at += `:${error.line}`;
  if (typeof error.line === 'number' && typeof error.column === 'number') at += `:${error.column}`;
  return at;
}

/** An error message with its `file:line:column` in a span of its own (so a test or a person can pick it out). */
export function errorLine(error) {
  const at = where(error);
  return h(
    'span',
    { class: 'error-line' },
    at ? h('code', { class: 'where' }, at) : null,
    at ? ' ' : null,
    error.message ?? '',
  );
}

const FOLD_CHARS = 160;

/**
 * A JSON value for an event row: short ones inline, long ones folded behind a click, and a
 * payload the server already folded (`{ folded, preview, chars }`) shown as such.
 */
export function folded(value, label = 'value') {
  if (value && typeof value === 'object' && value.folded === true && typeof value.preview === 'string') {
    return h(
      'details',
      { class: 'fold' },
      h('summary', null, `${label}: folded by the server (${value.chars} chars)`),
      h('pre', null, value.preview),
    );
  }
  const text = value === undefined ? 'undefined' : JSON.stringify(value);
  if (text.length <= FOLD_CHARS) return h('code', { class: 'inline-json' }, text);
  return h(
    'details',
    { class: 'fold' },
    h('summary', null, `${text.slice(0, 60)}… (${text.length} chars)`),
    // Pretty-printed only when opened: a row that nobody opens costs one string.
    h('pre', { class: 'lazy', dataset: { json: text } }),
  );
}

/** Fills lazy `<pre>`s of folded values when their `<details>` opens. */
export function installLazyFolds(root) {
  root.addEventListener(
    'toggle',
    (event) => {
      const details = event.target;
      if (!(details instanceof HTMLDetailsElement) || !details.open) return;
      const pre = details.querySelector(':scope > pre.lazy');
      if (!pre || pre.dataset.json === undefined) return;
      try {
        pre.textContent = JSON.stringify(JSON.parse(pre.dataset.json), null, 2);
      } catch {
        pre.textContent = pre.dataset.json;
      }
      delete pre.dataset.json;
      pre.classList.remove('lazy');
    },
    true,
  );
}

/**
 * A JSON value as a collapsible tree: objects and arrays as `<details>` (open to `openDepth`),
 * leaves as typed spans.
 */
export function tree(value, key, depth = 0, openDepth = 2) {
  const label = key === undefined ? null : h('span', { class: 'tree-key' }, `${key}: `);
  if (value !== null && typeof value === 'object') {
    const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value);
    const shape = Array.isArray(value) ? `[${entries.length}]` : `{${entries.length}}`;
    return h(
      'details',
      { class: 'tree', open: depth < openDepth },
      h('summary', null, label, h('span', { class: 'dim' }, shape)),
      h(
        'div',
        { class: 'tree-children' },
        entries.map(([k, v]) => tree(v, k, depth + 1, openDepth)),
      ),
    );
  }
  const type = value === null ? 'null' : typeof value;
  return h(
    'div',
    { class: 'tree-leaf' },
    label,
    h('span', { class: `tree-${type}` }, type === 'string' ? JSON.stringify(value) : String(value)),
  );
}

/** JSON of a request's answer, with the server's `{ error }` text when it failed. */
export async function fetchJson(url, init) {
  const response = await fetch(url, { ...init, headers: { ...authHeaders(), ...init?.headers } });
  let body;
  try {
    body = await response.json();
  } catch {
    body = undefined;
  }
  if (!response.ok) {
    const why = body && typeof body.error === 'string' ? body.error : response.statusText;
    throw new Error(`${init?.method ?? 'GET'} ${url}: ${response.status} ${why}`);
  }
  return body;
}

/** POSTs JSON (the browser adds the Origin header the server's CSRF check wants). */
export function postJson(url, body) {
  return fetchJson(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}
