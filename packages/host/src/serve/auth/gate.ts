import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import {
  type AuthInfo,
  bearerAuthChallengeResponse,
  buildOAuthProtectedResourceMetadata,
  getOAuthProtectedResourceMetadataUrl,
  OAuthError,
  OAuthErrorCode,
  type OAuthMetadata,
  type OAuthProtectedResourceMetadata,
  type OAuthTokenVerifier,
  verifyBearerToken,
} from '@modelcontextprotocol/server';
import type { Principal } from '../../types.js';
import { jwtVerifier, type OAuthResourceOptions } from './jwt.js';
import { isLoopback } from './loopback.js';
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
  /**
   * The OAuth resource-server role (serve/auth/jwt.ts): access tokens issued by `issuer` for
   * `resource`; default config `serve.auth.oauth`. Project tokens keep working beside it unless
   * `tokens` is false.
   */
  readonly oauth?: OAuthResourceOptions;
  /** The clock access tokens are checked against, ms (tests); default `Date.now`. */
  readonly now?: () => number;
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
  /** With OAuth: the RFC 9728 metadata document when `path` is its well-known path. */
  metadata(path: string): OAuthProtectedResourceMetadata | undefined;
  /** Host names that must be accepted (the OAuth resource's). */
  readonly hosts: readonly string[];
  /** Stops watching the tokens file. */
  close(): void;
}

export const ANONYMOUS: Principal = Object.freeze({ id: 'anonymous', kind: 'anonymous' });

/** One array, so a caller that keeps what it made from the secrets sees nothing changed. */
const NO_SECRETS: readonly string[] = Object.freeze([]);

const MISSING =
  `this MCP endpoint needs a bearer token: send "Authorization: Bearer <token>". ` +
  `toolhost token prints this project's token (${TOKENS_FILE}); toolhost mcp-config --url URL prints a client entry that sends it`;
const MISSING_OAUTH =
  'this MCP endpoint needs a bearer token: an OAuth access token from the authorization server its protected resource metadata names (see resource_metadata in WWW-Authenticate)';
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
      secrets: () => NO_SECRETS,
      metadata: () => undefined,
      hosts: [],
      close: () => {},
      summary: 'NO AUTHENTICATION (--allow-unauthenticated): any local process may call every tool',
    };
  }
  const oauth = options.oauth;
  const source = options.tokens ?? 'project';
  if (source === false && oauth === undefined) {
    throw new RangeError(
      'serveHttp: auth.tokens is false and no other way to authenticate is configured (serve.auth.oauth)',
    );
  }
  let tokens: ProjectTokenCheck | undefined;
  if (source === 'project') {
    await projectTokens(root);
    tokens = projectTokenCheck({ root });
  } else if (source !== false) {
    tokens = projectTokenCheck({ tokens: source });
  }
  const required = [...(oauth?.scopes ?? [])];
  const jwt = oauth === undefined ? undefined : jwtVerifier(oauth, options.now);
  const resourceMetadataUrl =
    oauth === undefined ? undefined : getOAuthProtectedResourceMetadataUrl(new URL(oauth.resource));
  const metadataPath = resourceMetadataUrl === undefined ? undefined : new URL(resourceMetadataUrl).pathname;
  const document =
    oauth === undefined
      ? undefined
      : buildOAuthProtectedResourceMetadata({
          // Only the issuer is read from it: the document names the server, not its endpoints.
          oauthMetadata: { issuer: oauth.issuer } as OAuthMetadata,
          resourceServerUrl: new URL(oauth.resource),
          ...(required.length === 0 ? {} : { scopesSupported: required }),
          resourceName: 'toolhost',
        });
  const verifier: OAuthTokenVerifier = {
    async verifyAccessToken(token) {
      // A project token looks like one; anything else is an access token to verify, when OAuth is on.
      const principal = tokens?.check(token);
      if (principal !== undefined) {
        // A project token does not expire: it lasts until rotated. The SDK wants an expiry, and
        // the scopes any token must have (a project token is the operator's: it has them all).
        return {
          token,
          clientId: principal.id,
          scopes: required,
          expiresAt: Date.now() / 1000 + 3600,
          ...(oauth === undefined ? {} : { resource: new URL(oauth.resource) }),
          extra: { principal },
        };
      }
      if (jwt !== undefined && !token.startsWith('th_')) return jwt.verify(token);
      throw new OAuthError(OAuthErrorCode.InvalidToken, WRONG);
    },
  };
  const challenge = {
    requiredScopes: required,
    ...(resourceMetadataUrl === undefined ? {} : { resourceMetadataUrl }),
  };
  const ways = [
    ...(tokens === undefined ? [] : [`the project's tokens in ${TOKENS_FILE} (toolhost token shows them)`]),
    ...(oauth === undefined ? [] : [`OAuth access tokens of ${oauth.issuer} for ${oauth.resource}`]),
  ];
  /**
   * The last project-token answer of each connection (keep-alive: a client's requests share one),
   * reused while the same connection sends the same header and the tokens file is the same
   * version: the file is still looked at on every request, so a rotation holds from the next one.
   * The header is compared only with what that connection itself sent before.
   */
  const answered = new WeakMap<Socket, { header: string; generation: string; outcome: AuthOutcome }>();
  return {
    token: tokens?.token('default'),
    summary: `bearer token required (${ways.join('; or ')})`,
    secrets: () => tokens?.all() ?? NO_SECRETS,
    close: () => tokens?.close(),
    metadata: (path) =>
      path === metadataPath || (metadataPath !== undefined && path === `${metadataPath}/`)
        ? document
        : undefined,
    hosts: oauth === undefined ? [] : [new URL(oauth.resource).hostname.toLowerCase()],
    async authenticate(req) {
      const header = req.headers.authorization;
      // Taken before the check: were the file to change during it, the answer is kept under the
      // older version, which the next request no longer finds (a miss, never a stale hit).
      const generation = tokens?.generation();
      const last = generation === undefined ? undefined : answered.get(req.socket);
      if (last !== undefined && last.header === header && last.generation === generation) {
        return last.outcome;
      }
      try {
        if (header === undefined || header.trim() === '') {
          throw new OAuthError(OAuthErrorCode.InvalidToken, oauth === undefined ? MISSING : MISSING_OAUTH);
        }
        const authInfo = await verifyBearerToken(header, {
          verifier,
          ...challenge,
          ...(oauth === undefined ? {} : { expectedResource: new URL(oauth.resource) }),
        });
        const principal = authInfo.extra?.principal as Principal;
        const outcome: AuthOutcome = { ok: true, principal, authInfo };
        if (generation !== undefined && principal.kind === 'token' && header !== undefined) {
          answered.set(req.socket, { header, generation, outcome });
        }
        return outcome;
      } catch (error) {
        const said =
          error instanceof OAuthError && error.code === OAuthErrorCode.InsufficientScope
            ? new OAuthError(
                OAuthErrorCode.InsufficientScope,
                `the access token lacks a scope this server requires (${required.join(' ')}; serve.auth.oauth.scopes): ask the authorization server for a token with them`,
              )
            : error;
        return { ok: false, response: bearerAuthChallengeResponse(said, challenge) };
      }
    },
  };
}
