/**
 * The dashboard's per-run secret. `Origin` cannot tell the page from another local process: only
 * browsers are bound by it, and any HTTP client can send `Origin: http://127.0.0.1:<port>`. So the
 * page proves itself with a token that `toolhost dev` prints in the dashboard's address, as
 * Jupyter does; the page moves it out of the address into its tab's sessionStorage and sends it
 * on every API request. A process that did not see dev's terminal does not have it.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** What a request showed: the token, none, or another one. */
export type TokenCheck = 'ok' | 'missing' | 'wrong';

/** One server's token. */
export interface DashboardToken {
  /** 32 random bytes, base64url: safe in a URL as is. */
  readonly value: string;
  /**
   * Checks the `Authorization: Bearer <token>` header; with `query`, also `?token=` in the URL
   * (the event stream's: `EventSource` cannot set headers).
   */
  check(req: IncomingMessage, options?: { readonly query?: boolean }): TokenCheck;
}

const digest = (value: string) => createHash('sha256').update(value).digest();
const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

function presented(req: IncomingMessage, query: boolean): string | undefined {
  const match = BEARER.exec(req.headers.authorization ?? '');
  if (match !== null) return match[1];
  if (!query) return undefined;
  const url = req.url ?? '';
  const at = url.indexOf('?');
  if (at < 0) return undefined;
  return new URLSearchParams(url.slice(at + 1)).get('token') ?? undefined;
}

export function createDashboardToken(): DashboardToken {
  const value = randomBytes(32).toString('base64url');
  const expected = digest(value);
  return {
    value,
    check(req, options = {}) {
      const given = presented(req, options.query === true);
      if (given === undefined || given === '') return 'missing';
      // Digests have one length, so the comparison takes the same time whatever was sent.
      return timingSafeEqual(digest(given), expected) ? 'ok' : 'wrong';
    },
  };
}

/** Why a request was refused, for the `{ error }` a person reads in the page or a terminal. */
export const TOKEN_REFUSALS = {
  missing:
    'unauthorized: the dashboard API answers only the page that toolhost dev opened: open the dashboard address toolhost dev printed (it ends in /?token=…); the page keeps the token for its tab',
  wrong:
    'forbidden: the dashboard token does not match (each run of toolhost dev makes a new one): open the dashboard address toolhost dev printed',
} as const satisfies Record<Exclude<TokenCheck, 'ok'>, string>;
