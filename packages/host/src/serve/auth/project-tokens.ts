import { createHash, timingSafeEqual } from 'node:crypto';
import type { Principal } from '../../types.js';
import { readTokensSync, type ServeToken, tokenFileStamp, tokensPath } from './tokens.js';

/**
 * Checks a presented bearer token against the project's tokens in constant time: the token is
 * hashed, and the hash is compared with every known token's hash, all of them, whatever matched
 * (digests have one length, so no comparison ends early on a shorter or longer guess). The file
 * is looked at (one `stat`) on every check and read again when it changed, so a rotation or a
 * removal by `toolhost token` holds from the next request on, in every server of the project.
 * The list of every token (`all`, the audit trail's secrets) takes the look of a check made in the
 * same turn of the event loop, as a served call's record does of its request's check, rather than
 * a second `stat` per call (one costs 4-10 µs here, a few % of a served call).
 */
export interface ProjectTokenCheck {
  /** The principal of `token`, or undefined when it is none of the project's. */
  check(token: string): Principal | undefined;
  /** The token of that name now (`default` for the client entries `mcp-config` prints). */
  token(name: string): string | undefined;
  /**
   * Every token now (as a check in this turn of the event loop found them, else looked at now):
   * the same array until the file changes.
   */
  all(): readonly string[];
  /**
   * Which version of the tokens holds now (the file looked at again): what a cache of a check's
   * answer is keyed on, so a rotation or removal holds from the next request all the same.
   */
  generation(): string;
}

interface Known {
  readonly name: string;
  readonly token: string;
  readonly digest: Buffer;
  readonly principal: Principal;
}

const digest = (value: string) => createHash('sha256').update(value).digest();

function known(tokens: readonly ServeToken[]): Known[] {
  return tokens.map(({ name, token }) => ({
    name,
    token,
    digest: digest(token),
    principal: Object.freeze({ id: `token:${name}`, kind: 'token', tokenName: name }),
  }));
}

/** Tokens given in code (`serveHttp({ auth: { tokens: [...] } })`), or the project's file under `root`. */
export function projectTokenCheck(
  source: { root: string } | { tokens: readonly ServeToken[] },
): ProjectTokenCheck {
  const file = 'root' in source ? tokensPath(source.root) : undefined;
  let stamp = 'given';
  let tokens: Known[] = 'tokens' in source ? known(source.tokens) : [];
  let values = tokens.map((t) => t.token);
  /** Whether a check looked at the file in this turn of the event loop (until its check phase). */
  let looked = false;
  /** Whether anything takes the list (an audit trail): else a check marks no turn. */
  let listed = false;
  const unlook = () => {
    looked = false;
  };
  const current = (): Known[] => {
    if (file === undefined || !('root' in source)) return tokens;
    const now = tokenFileStamp(file);
    if (now !== stamp) {
      tokens = known(readTokensSync(source.root));
      values = tokens.map((t) => t.token);
      stamp = now;
    }
    return tokens;
  };
  /** `current()` for a check: always looks, and lets the rest of the turn take that look. */
  const checked = (): Known[] => {
    const found = current();
    if (listed && file !== undefined && !looked) {
      looked = true;
      setImmediate(unlook).unref();
    }
    return found;
  };
  return {
    check(token) {
      const given = digest(token);
      let found: Known | undefined;
      for (const entry of checked()) {
        if (timingSafeEqual(given, entry.digest) && found === undefined) found = entry;
      }
      return found?.principal;
    },
    token: (name) => current().find((t) => t.name === name)?.token,
    all: () => {
      listed = true;
      if (!looked) current();
      return values;
    },
    generation: () => {
      checked();
      return stamp;
    },
  };
}
