import type { IncomingMessage } from 'node:http';
import {
  type AuthInfo,
  bearerAuthChallengeResponse,
  OAuthError,
  OAuthErrorCode,
  type OAuthTokenVerifier,
  verifyBearerToken,
} from '@modelcontextprotocol/server';
import type { Principal } from '../../types.js';
import { type ProjectTokenCheck, projectTokenCheck } from './project-tokens.js';
import { projectTokens, type ServeToken, TOKENS_FILE } from './tokens.js';

/**
 * Who may use the HTTP endpoint. Every request to `/mcp` shows a bearer token: one of the
 * project's (`.toolhost/serve-tokens.json`, made on first use) or, with `oauth`, an access token
 * an authorization server issued for this server. A request without one, or with one that is not
 * valid, gets `401` with a `WWW-Authenticate: Bearer` challenge; nothing is served. Only a
 * server on a loopback address may do without (`allowUnauthenticated`), and says so.
 */
export interface HttpAuthOptions {
  /**
   * `'project'` (the default): the tokens of the host root's `.toolhost/serve-tokens.json`, made
   * with one `default` token when missing; or tokens given here; or `false` for none (OAuth only).
   */
  readonly tokens?: 'project' | readonly ServeToken[] | false;
  /**
   * No credential at all: anyone who can reach the port may call every tool. Refused unless the
   * server listens on a loopback address (127.0.0.0/8, ::1, localhost).
   */
  readonly allowUnauthenticated?: boolean;
}

/** What the gate decided about one request. */
export type AuthOutcome =
  | { readonly ok: true; readonly principal: Principal; readonly authInfo?: AuthInfo }
  /** The refusal to send as it is (401 or 403 with its challenge). */
  | { readonly ok: false; readonly response: Response };

/** The HTTP endpoint's authentication, made once per server. */
export interface AuthGate {
  authenticate(req: IncomingMessage): Promise<AuthOutcome>;
  /** The project's `default` token when project tokens are on (what `dev` prints). */
  readonly token: string | undefined;
  /** One line for the start banner: how callers authenticate. */
  readonly summary: string;
  /** The credentials it knows now (the project tokens), which no audit record may hold. */
  secrets(): readonly string[];
}

export const ANONYMOUS: Principal = Object.freeze({ id: 'anonymous', kind: 'anonymous' });

const LOOPBACK = /^(?:127(?:\.\d{1,3}){3}|::1|\[::1\]|localhost)$/i;

/** Whether `hostname` (what the server binds) is reachable from this machine only. */
export function isLoopback(hostname: string): boolean {
  return LOOPBACK.test(hostname);
}

const MISSING =
  `this MCP endpoint needs a bearer token: send "Authorization: Bearer <token>". ` +
  `toolhost token prints this project's token (${TOKENS_FILE}); toolhost mcp-config --url URL prints a client entry that sends it`;
const WRONG = `the bearer token is not valid here: it is none of this project's tokens (rotated? toolhost token prints the current one)`;

/**
 * The gate of one server listening on `hostname`. Throws a RangeError for a setting that would
 * leave the endpoint open where it must not be, before anything listens.
 */
export async function createAuthGate(
  root: string,
  hostname: string,
  options: HttpAuthOptions = {},
): Promise<AuthGate> {
  if (options.allowUnauthenticated === true) {
    if (!isLoopback(hostname)) {
      throw new RangeError(
        `serveHttp: allowUnauthenticated (--allow-unauthenticated) is for a loopback address only, and ${hostname} can be reached from other machines; give clients a token (toolhost token) instead`,
      );
    }
    return {
      authenticate: async () => ({ ok: true, principal: ANONYMOUS }),
      token: undefined,
      secrets: () => [],
      summary: 'NO AUTHENTICATION (--allow-unauthenticated): any local process may call every tool',
    };
  }
  const source = options.tokens ?? 'project';
  if (source === false) {
    throw new RangeError('serveHttp: auth.tokens is false and no other way to authenticate is configured');
  }
  let tokens: ProjectTokenCheck;
  if (source === 'project') {
    await projectTokens(root);
    tokens = projectTokenCheck({ root });
  } else {
    tokens = projectTokenCheck({ tokens: source });
  }
  const verifier: OAuthTokenVerifier = {
    async verifyAccessToken(token) {
      const principal = tokens.check(token);
      if (principal === undefined) throw new OAuthError(OAuthErrorCode.InvalidToken, WRONG);
      // A project token does not expire: it lasts until rotated. The SDK wants an expiry.
      return {
        token,
        clientId: principal.id,
        scopes: [],
        expiresAt: Date.now() / 1000 + 3600,
        extra: { principal },
      };
    },
  };
  return {
    token: tokens.token('default'),
    secrets: () => tokens.all(),
    summary: `bearer token required (the project's tokens in ${TOKENS_FILE}; toolhost token shows them)`,
    async authenticate(req) {
      const header = req.headers.authorization;
      try {
        if (header === undefined || header.trim() === '') {
          throw new OAuthError(OAuthErrorCode.InvalidToken, MISSING);
        }
        const authInfo = await verifyBearerToken(header, { verifier });
        return { ok: true, principal: authInfo.extra?.principal as Principal, authInfo };
      } catch (error) {
        return { ok: false, response: bearerAuthChallengeResponse(error) };
      }
    },
  };
}
