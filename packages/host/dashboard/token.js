/**
 * The page's proof that `toolhost dev` opened it. dev prints the dashboard's address with
 * `?token=…`, a secret made for that run, and the API answers only requests that carry it. On
 * load the token moves from the address bar into this tab's sessionStorage, so it is not left in
 * the history, a bookmark or a screenshot. sessionStorage rather than a cookie: storage belongs to
 * one origin (scheme, host *and port*), while a cookie set by 127.0.0.1:7337 would go to every
 * server on any port of 127.0.0.1, any local process's included.
 */

const KEY = 'toolhost-dashboard-token';

/** Takes `?token=` from the address, keeps it for this tab, and removes it from the address. */
export function adoptToken() {
  const url = new URL(location.href);
  const token = url.searchParams.get('token');
  if (token === null) return;
  sessionStorage.setItem(KEY, token);
  url.searchParams.delete('token');
  history.replaceState(history.state, '', `${url.pathname}${url.search}${url.hash}`);
}

function token() {
  return sessionStorage.getItem(KEY) ?? '';
}

/** The header every API request carries (none when the page was opened without a token). */
export function authHeaders() {
  const value = token();
  return value === '' ? {} : { authorization: `Bearer ${value}` };
}

/** `url` with the token in its query: `EventSource` cannot send headers. */
export function withToken(url) {
  const value = token();
  return value === '' ? url : `${url}${url.includes('?') ? '&' : '?'}token=${encodeURIComponent(value)}`;
}
