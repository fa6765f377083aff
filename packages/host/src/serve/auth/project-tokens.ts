import { createHash, timingSafeEqual } from 'node:crypto';
import { type FSWatcher, watch } from 'node:fs';
import * as path from 'node:path';
import type { Principal } from '../../types.js';
import { readTokensSync, type ServeToken, tokenFileStamp, tokensPath } from './tokens.js';

/**
 * Checks a presented bearer token against the project's tokens in constant time: the token is
 * hashed, and the hash is compared with every known token's hash, all of them, whatever matched
 * (digests have one length, so no comparison ends early on a shorter or longer guess).
 *
 * The file is watched (its folder, with inotify: `toolhost token` replaces it by a rename), and
 * read again at the first check after it changed. A change event is queued by the kernel when the
 * rename is made, before any request sent after it can be read, so a rotation or a removal holds
 * from the next request on, in every server of the project. Where no event comes (a network
 * file system, whose changes made on another machine inotify does not see), the file is looked
 * at (one `stat`) again when the last look is `LOOK_HOLDS_MS` old; where the folder cannot be
 * watched, on every check. Looking on every request cost a served call 15-25 µs (a `stat` after
 * network I/O, with cold caches), a third of what authentication, audit and tracing together may.
 */
export interface ProjectTokenCheck {
  /** The principal of `token`, or undefined when it is none of the project's. */
  check(token: string): Principal | undefined;
  /** The token of that name now (`default` for the client entries `mcp-config` prints). */
  token(name: string): string | undefined;
  /** Every token now: the same array until the file changes. */
  all(): readonly string[];
  /**
   * Which version of the tokens holds now: what a cache of a check's answer is keyed on, so a
   * rotation or removal holds from the next request all the same.
   */
  generation(): string;
  /** Stops watching the file. */
  close(): void;
}

/** How long a look at the file holds when no change event came, ms. */
export const LOOK_HOLDS_MS = 100;

/** For tests: the clock of the looks, and a file system that sends no change events. */
export interface TokenCheckOptions {
  readonly now?: () => number;
  readonly events?: boolean;
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
  options: TokenCheckOptions = {},
): ProjectTokenCheck {
  const file = 'root' in source ? tokensPath(source.root) : undefined;
  const now = options.now ?? performance.now.bind(performance);
  let stamp = 'given';
  let tokens: Known[] = 'tokens' in source ? known(source.tokens) : [];
  let values = tokens.map((t) => t.token);
  /** When the file was last looked at; -Infinity: never. */
  let lookedAt = Number.NEGATIVE_INFINITY;
  /** Whether an event said the file may have changed since that look. */
  let changed = true;
  let holds = 0;
  let watcher: FSWatcher | undefined;
  const unwatch = () => {
    watcher?.close();
    watcher = undefined;
    holds = 0;
  };
  if (file !== undefined) {
    const dir = path.dirname(file);
    const base = path.basename(file);
    try {
      // Not persistent: a watch keeps no process alive.
      watcher = watch(dir, { persistent: false }, (_event, name) => {
        if (options.events === false) return;
        if (name === null || name === base) changed = true;
        // The folder itself removed or moved: no more events will come from it.
        else if (name === path.basename(dir)) {
          changed = true;
          unwatch();
        }
      });
      // The folder gone or the watch broken: look on every check from now on.
      watcher.on('error', unwatch);
      holds = LOOK_HOLDS_MS;
    } catch {
      holds = 0;
    }
  }
  const current = (): Known[] => {
    if (file === undefined || !('root' in source)) return tokens;
    const at = now();
    if (!changed && at - lookedAt < holds) return tokens;
    changed = false;
    lookedAt = at;
    const seen = tokenFileStamp(file);
    if (seen !== stamp) {
      tokens = known(readTokensSync(source.root));
      values = tokens.map((t) => t.token);
      stamp = seen;
    }
    return tokens;
  };
  return {
    check(token) {
      const given = digest(token);
      let found: Known | undefined;
      for (const entry of current()) {
        if (timingSafeEqual(given, entry.digest) && found === undefined) found = entry;
      }
      return found?.principal;
    },
    token: (name) => current().find((t) => t.name === name)?.token,
    all: () => {
      current();
      return values;
    },
    generation: () => {
      current();
      return stamp;
    },
    close: unwatch,
  };
}
