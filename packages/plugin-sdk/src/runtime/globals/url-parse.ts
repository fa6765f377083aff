/** The URL Standard's basic URL parser, one state machine kept whole to read beside the spec (url.ts builds `URL` on it). */

import { parseHost } from './url-host.js';
import {
  c0Set,
  encodeCodePoint,
  encodeString,
  fragmentSet,
  isAlpha,
  isDigit,
  isSpecial,
  pathSet,
  querySet,
  SPECIAL,
  specialQuerySet,
  type UrlRecord,
  userinfoSet,
} from './url-parts.js';

// ---- the basic URL parser -----------------------------------------------------------------------

const isWindowsLetter = (s: string, normalizedOnly = false) =>
  s.length === 2 && isAlpha(s[0] as string) && (s[1] === ':' || (!normalizedOnly && s[1] === '|'));

function startsWithWindowsLetter(cps: string[], p: number): boolean {
  if (cps.length - p < 2) return false;
  if (!isWindowsLetter((cps[p] as string) + (cps[p + 1] as string))) return false;
  if (cps.length - p === 2) return true;
  return ['/', '\\', '?', '#'].includes(cps[p + 2] as string);
}

function shortenPath(url: UrlRecord): void {
  const path = url.path as string[];
  if (url.scheme === 'file' && path.length === 1 && isWindowsLetter(path[0] as string, true)) return;
  path.pop();
}

const isSingleDot = (s: string) => s === '.' || s.toLowerCase() === '%2e';
const isDoubleDot = (s: string) => ['..', '.%2e', '%2e.', '%2e%2e'].includes(s.toLowerCase());

type State =
  | 'scheme-start'
  | 'scheme'
  | 'no-scheme'
  | 'special-relative-or-authority'
  | 'path-or-authority'
  | 'relative'
  | 'relative-slash'
  | 'special-authority-slashes'
  | 'special-authority-ignore-slashes'
  | 'authority'
  | 'host'
  | 'port'
  | 'file'
  | 'file-slash'
  | 'file-host'
  | 'path-start'
  | 'path'
  | 'opaque-path'
  | 'query'
  | 'fragment';

export /** A relative URL's credentials, host and port, from its base. */
function copyAuthority(url: UrlRecord, base: UrlRecord): void {
  url.username = base.username;
  url.password = base.password;
  url.host = base.host;
  url.port = base.port;
}

export function basicParse(rawInput: string, base: UrlRecord | undefined): UrlRecord | undefined {
  const input = rawInput.replace(/^[\0-\x20]+|[\0-\x20]+$/g, '').replace(/[\t\n\r]/g, '');
  const cps = Array.from(input);
  const url: UrlRecord = {
    scheme: '',
    username: '',
    password: '',
    host: null,
    port: null,
    path: [],
    query: null,
    fragment: null,
  };
  let state: State = 'scheme-start';
  let buffer = '';
  let atSignSeen = false;
  let insideBrackets = false;
  let passwordTokenSeen = false;
  const segments = () => url.path as string[];
  let p = 0;
  /** The spec's "decrease pointer by 1" with a new state: the next turn reads `c` again, in `next`. */
  const reconsume = (next: State) => {
    state = next;
    p--;
  };
  /** `?` starts an empty query, `#` an empty fragment: true when `c` was one of them. */
  const startsQueryOrFragment = (c: string | undefined): boolean => {
    if (c === '?') {
      url.query = '';
      state = 'query';
      return true;
    }
    if (c === '#') {
      url.fragment = '';
      state = 'fragment';
      return true;
    }
    return false;
  };
  /** EOF, `/`, `?`, `#`, or `\` in a special URL: what ends an authority, a host, a port or a path segment. */
  const endsPart = (c: string | undefined): c is '/' | '?' | '#' | '\\' | undefined =>
    c === undefined || c === '/' || c === '?' || c === '#' || (isSpecial(url.scheme) && c === '\\');
  /** At `//`, on past the second slash into the state that skips any more; else `c` is read again in `otherwise`. */
  const slashesOr = (c: string | undefined, otherwise: State) => {
    if (c === '/' && cps[p + 1] === '/') {
      state = 'special-authority-ignore-slashes';
      p++;
    } else reconsume(otherwise);
  };
  for (; p <= cps.length; p++) {
    const c = cps[p]; // undefined at EOF
    // `as State`: `reconsume` assigns it too, out of the compiler's sight.
    switch (state as State) {
      case 'scheme-start':
        if (c !== undefined && isAlpha(c)) {
          buffer += c.toLowerCase();
          state = 'scheme';
        } else {
          reconsume('no-scheme');
        }
        break;
      case 'scheme':
        if (c !== undefined && (isAlpha(c) || isDigit(c) || c === '+' || c === '-' || c === '.')) {
          buffer += c.toLowerCase();
        } else if (c === ':') {
          url.scheme = buffer;
          buffer = '';
          if (url.scheme === 'file') state = 'file';
          else if (isSpecial(url.scheme) && base !== undefined && base.scheme === url.scheme)
            state = 'special-relative-or-authority';
          else if (isSpecial(url.scheme)) state = 'special-authority-slashes';
          else if (cps[p + 1] === '/') {
            state = 'path-or-authority';
            p++;
          } else {
            url.path = '';
            state = 'opaque-path';
          }
        } else {
          buffer = '';
          state = 'no-scheme';
          p = -1;
        }
        break;
      case 'no-scheme':
        if (base === undefined || (typeof base.path === 'string' && c !== '#')) return undefined;
        if (typeof base.path === 'string' && c === '#') {
          url.scheme = base.scheme;
          url.path = base.path;
          url.query = base.query;
          url.fragment = '';
          state = 'fragment';
        } else if (base.scheme !== 'file') {
          reconsume('relative');
        } else {
          reconsume('file');
        }
        break;
      case 'special-relative-or-authority':
        slashesOr(c, 'relative');
        break;
      case 'path-or-authority':
        if (c === '/') state = 'authority';
        else {
          reconsume('path');
        }
        break;
      case 'relative': {
        const b = base as UrlRecord;
        url.scheme = b.scheme;
        if (c === '/') state = 'relative-slash';
        else if (isSpecial(url.scheme) && c === '\\') state = 'relative-slash';
        else {
          copyAuthority(url, b);
          url.path = [...(b.path as string[])];
          url.query = b.query;
          if (!startsQueryOrFragment(c) && c !== undefined) {
            url.query = null;
            shortenPath(url);
            reconsume('path');
          }
        }
        break;
      }
      case 'relative-slash': {
        const b = base as UrlRecord;
        if (isSpecial(url.scheme) && (c === '/' || c === '\\')) state = 'special-authority-ignore-slashes';
        else if (c === '/') state = 'authority';
        else {
          copyAuthority(url, b);
          reconsume('path');
        }
        break;
      }
      case 'special-authority-slashes':
        slashesOr(c, 'special-authority-ignore-slashes');
        break;
      case 'special-authority-ignore-slashes':
        if (c !== '/' && c !== '\\') {
          reconsume('authority');
        }
        break;
      case 'authority':
        if (c === '@') {
          if (atSignSeen) buffer = `%40${buffer}`;
          atSignSeen = true;
          for (const ch of buffer) {
            if (ch === ':' && !passwordTokenSeen) {
              passwordTokenSeen = true;
              continue;
            }
            const encoded = encodeCodePoint(ch, userinfoSet);
            if (passwordTokenSeen) url.password += encoded;
            else url.username += encoded;
          }
          buffer = '';
        } else if (endsPart(c)) {
          if (atSignSeen && buffer === '') return undefined;
          p -= Array.from(buffer).length + 1;
          buffer = '';
          state = 'host';
        } else buffer += c;
        break;
      case 'host':
        if (c === ':' && !insideBrackets) {
          if (buffer === '') return undefined;
          const host = parseHost(buffer, isSpecial(url.scheme));
          if (host === undefined) return undefined;
          url.host = host;
          buffer = '';
          state = 'port';
        } else if (endsPart(c)) {
          p--;
          if (isSpecial(url.scheme) && buffer === '') return undefined;
          const host = parseHost(buffer, isSpecial(url.scheme));
          if (host === undefined) return undefined;
          url.host = host;
          buffer = '';
          state = 'path-start';
        } else {
          if (c === '[') insideBrackets = true;
          if (c === ']') insideBrackets = false;
          buffer += c;
        }
        break;
      case 'port':
        if (c !== undefined && isDigit(c)) buffer += c;
        else if (endsPart(c)) {
          if (buffer !== '') {
            const port = Number.parseInt(buffer, 10);
            if (port > 65535) return undefined;
            url.port = SPECIAL[url.scheme] === port ? null : port;
            buffer = '';
          }
          reconsume('path-start');
        } else return undefined;
        break;
      case 'file':
        url.scheme = 'file';
        url.host = '';
        if (c === '/' || c === '\\') state = 'file-slash';
        else if (base !== undefined && base.scheme === 'file') {
          url.host = base.host;
          url.path = [...(base.path as string[])];
          url.query = base.query;
          if (!startsQueryOrFragment(c) && c !== undefined) {
            url.query = null;
            if (!startsWithWindowsLetter(cps, p)) shortenPath(url);
            else url.path = [];
            reconsume('path');
          }
        } else {
          reconsume('path');
        }
        break;
      case 'file-slash':
        if (c === '/' || c === '\\') state = 'file-host';
        else {
          if (base !== undefined && base.scheme === 'file') {
            url.host = base.host;
            const first = (base.path as string[])[0];
            if (!startsWithWindowsLetter(cps, p) && first !== undefined && isWindowsLetter(first, true))
              segments().push(first);
          }
          reconsume('path');
        }
        break;
      case 'file-host':
        if (c === undefined || c === '/' || c === '\\' || c === '?' || c === '#') {
          p--;
          if (isWindowsLetter(buffer)) state = 'path';
          else if (buffer === '') {
            url.host = '';
            state = 'path-start';
          } else {
            let host = parseHost(buffer, true);
            if (host === undefined) return undefined;
            if (host === 'localhost') host = '';
            url.host = host;
            buffer = '';
            state = 'path-start';
          }
        } else buffer += c;
        break;
      case 'path-start':
        if (isSpecial(url.scheme)) {
          state = 'path';
          if (c !== '/' && c !== '\\') p--;
        } else if (!startsQueryOrFragment(c) && c !== undefined) {
          state = 'path';
          if (c !== '/') p--;
        }
        break;
      case 'path':
        if (endsPart(c)) {
          const slash = c === '/' || (isSpecial(url.scheme) && c === '\\');
          if (isDoubleDot(buffer)) {
            shortenPath(url);
            if (!slash) segments().push('');
          } else if (isSingleDot(buffer) && !slash) segments().push('');
          else if (!isSingleDot(buffer)) {
            if (url.scheme === 'file' && segments().length === 0 && isWindowsLetter(buffer)) {
              buffer = `${buffer[0]}:`;
            }
            segments().push(buffer);
          }
          buffer = '';
          startsQueryOrFragment(c);
        } else buffer += encodeCodePoint(c, pathSet);
        break;
      case 'opaque-path':
        if (!startsQueryOrFragment(c) && c !== undefined)
          url.path = (url.path as string) + encodeCodePoint(c, c0Set);
        break;
      case 'query':
        if (c === undefined || c === '#') {
          url.query =
            (url.query ?? '') + encodeString(buffer, isSpecial(url.scheme) ? specialQuerySet : querySet);
          buffer = '';
          if (c === '#') {
            url.fragment = '';
            state = 'fragment';
          }
        } else buffer += c;
        break;
      case 'fragment':
        if (c !== undefined) url.fragment = (url.fragment ?? '') + encodeCodePoint(c, fragmentSet);
        break;
    }
  }
  return url;
}
