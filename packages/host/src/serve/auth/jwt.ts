/**
 * The OAuth resource-server side of the HTTP endpoint (the MCP authorization spec): access tokens
 * are JWTs an authorization server signed, verified with `jose` against the keys its JWKS
 * publishes (fetched and cached by jose, refreshed when an unknown key id appears). A token is
 * taken only when its issuer is the configured one, its audience holds this server's canonical
 * URI (`resource`: a token issued for another server is refused, RFC 8707), and it has not
 * expired (`exp` is required). The token itself is never passed on: bridged servers get their own
 * credentials from their config entries, nothing of the caller's.
 */
import { type AuthInfo, OAuthError, OAuthErrorCode } from '@modelcontextprotocol/server';
import { createRemoteJWKSet, errors, type JWTPayload, jwtVerify } from 'jose';
import type { Principal } from '../../types.js';

/** Config `serve.auth.oauth`. */
export interface OAuthResourceOptions {
  /** The authorization server's issuer identifier (its `iss`). */
  readonly issuer: string;
  /** This server's canonical URI, what tokens must name as their audience: `https://tools.example.com/mcp`. */
  readonly resource: string;
  /** Where its signing keys are; default the `jwks_uri` of its metadata (`/.well-known/openid-configuration`, else RFC 8414's). */
  readonly jwksUri?: string;
  /** Scopes every token must carry; named in the 401's and 403's challenge and the metadata. */
  readonly scopes?: readonly string[];
}

/** The verifier of one server's access tokens. */
export interface JwtVerifier {
  verify(token: string): Promise<AuthInfo>;
}

async function discoverJwks(issuer: string): Promise<URL> {
  const base = issuer.replace(/\/$/, '');
  const url = new URL(issuer);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  const candidates = [
    `${base}/.well-known/openid-configuration`,
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
  ];
  for (const candidate of candidates) {
    try {
      const response = await fetch(candidate, { headers: { accept: 'application/json' } });
      if (!response.ok) continue;
      const metadata = (await response.json()) as { jwks_uri?: unknown; issuer?: unknown };
      if (metadata.issuer !== issuer) continue;
      if (typeof metadata.jwks_uri === 'string') return new URL(metadata.jwks_uri);
    } catch {
      // The next way, or the error below.
    }
  }
  throw new OAuthError(
    OAuthErrorCode.ServerError,
    `cannot find the signing keys of ${issuer}: its metadata names no jwks_uri; set serve.auth.oauth.jwksUri`,
  );
}

function scopesOf(payload: JWTPayload): string[] {
  const { scope, scp } = payload as { scope?: unknown; scp?: unknown };
  if (typeof scope === 'string') return scope.split(' ').filter((s) => s !== '');
  if (Array.isArray(scp)) return scp.filter((s): s is string => typeof s === 'string');
  return [];
}

/** Why jose refused a token, in words for the 401's `error_description`. */
function reason(error: unknown, options: OAuthResourceOptions): string {
  if (error instanceof errors.JWTExpired) return 'the access token has expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') {
      return `the access token was not issued for this server: its audience does not include ${options.resource} (serve.auth.oauth.resource)`;
    }
    if (error.claim === 'iss') {
      return `the access token is not from ${options.issuer} (serve.auth.oauth.issuer)`;
    }
    return `the access token's "${error.claim}" claim is not valid: ${error.reason}`;
  }
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWSSignatureVerificationFailed) {
    return `the access token is not signed by a key of ${options.issuer}`;
  }
  if (error instanceof errors.JOSEError) return `the access token is not a valid JWT (${error.code})`;
  return 'the access token could not be verified';
}

/** A verifier for `options`; `now` (ms) is the clock tokens are checked against. */
export function jwtVerifier(options: OAuthResourceOptions, now: () => number = Date.now): JwtVerifier {
  let keys: ReturnType<typeof createRemoteJWKSet> | undefined;
  const jwks = async () => {
    keys ??= createRemoteJWKSet(
      options.jwksUri === undefined ? await discoverJwks(options.issuer) : new URL(options.jwksUri),
    );
    return keys;
  };
  return {
    async verify(token) {
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, await jwks(), {
          issuer: options.issuer,
          audience: options.resource,
          requiredClaims: ['exp', 'sub'],
          currentDate: new Date(now()),
        }));
      } catch (error) {
        if (error instanceof OAuthError) throw error;
        throw new OAuthError(OAuthErrorCode.InvalidToken, reason(error, options));
      }
      const { client_id, azp } = payload as { client_id?: unknown; azp?: unknown };
      const clientId = typeof client_id === 'string' ? client_id : typeof azp === 'string' ? azp : undefined;
      const scopes = scopesOf(payload);
      const principal: Principal = Object.freeze({
        id: `oauth:${payload.sub}`,
        kind: 'oauth',
        subject: payload.sub as string,
        ...(clientId === undefined ? {} : { clientId }),
        scopes,
        claims: payload as Record<string, unknown>,
      });
      return {
        token,
        clientId: clientId ?? '',
        scopes,
        expiresAt: payload.exp as number,
        resource: new URL(options.resource),
        extra: { principal },
      };
    },
  };
}
