/**
 * The project's bearer tokens for the HTTP endpoint, kept in `.toolhost/serve-tokens.json`
 * (mode 0600, written whole through a temporary file and a rename). Each token has a name, which
 * is the caller's identity (`token:<name>`, what `principals` match and the audit trail records).
 * The file is made with one token, `default`, the first time a server needs it; `toolhost token`
 * shows, adds, rotates and removes them. The built-in tools and plugins can neither read nor
 * write it (workspace/control.ts, kind `secret`), and exec's and servers' jails hide it.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';

/** The file, relative to the project root. */
export const TOKENS_FILE = path.join('.toolhost', 'serve-tokens.json');

/** The token a server makes when the project has none. */
export const DEFAULT_TOKEN_NAME = 'default';

/** One named token. */
export interface ServeToken {
  /** Letters, digits, `_`, `.` and `-`, at most 64: the caller's identity is `token:<name>`. */
  readonly name: string;
  /** `th_` and 43 base64url characters (32 random bytes). */
  readonly token: string;
}

const NAME = /^[A-Za-z0-9_.-]{1,64}$/;
const TOKEN = /^th_[A-Za-z0-9_-]{43}$/;

/** A wrong token name or a damaged file: said in one line, naming the file. */
export class TokenFileError extends Error {
  override readonly name = 'TokenFileError';
  readonly code = 'token-file';
}

export function checkTokenName(name: string): string {
  if (!NAME.test(name)) {
    throw new TokenFileError(
      `a token name is 1-64 letters, digits, "_", "." or "-", not ${JSON.stringify(name)}`,
    );
  }
  return name;
}

export function newToken(): string {
  return `th_${randomBytes(32).toString('base64url')}`;
}

export function tokensPath(root: string): string {
  return path.join(root, TOKENS_FILE);
}

/** The tokens in `text` (the file's contents); an empty object (as a jail leaves it) holds none. */
function parse(text: string): ServeToken[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new TokenFileError(
      `${TOKENS_FILE} is not JSON; remove it and run toolhost token to make a new one`,
    );
  }
  const tokens = (value as { tokens?: unknown } | null)?.tokens ?? {};
  if (typeof tokens !== 'object' || tokens === null || Array.isArray(tokens)) {
    throw new TokenFileError(`${TOKENS_FILE}: "tokens" must be an object of name: token`);
  }
  return Object.entries(tokens).map(([name, token]) => {
    if (!NAME.test(name) || typeof token !== 'string' || !TOKEN.test(token)) {
      throw new TokenFileError(
        `${TOKENS_FILE}: token ${JSON.stringify(name)} is malformed; rotate it with toolhost token --rotate ${name}`,
      );
    }
    return { name, token };
  });
}

/** The file's tokens now, or none when it does not exist. */
export function readTokensSync(root: string): ServeToken[] {
  let text: string;
  try {
    text = readFileSync(tokensPath(root), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return parse(text);
}

/**
 * What identifies one version of the file on disk: a rename (every write) changes the inode.
 * `file` is `tokensPath(root)`, worked out once by a caller that asks on every request.
 */
export function tokenFileStamp(file: string): string {
  const stat = statSync(file, { throwIfNoEntry: false });
  return stat === undefined ? 'none' : `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
}

/** Writes `tokens` as the whole file, mode 0600, atomically. */
export async function writeTokens(root: string, tokens: readonly ServeToken[]): Promise<void> {
  const file = tokensPath(root);
  await fs.mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const body = { tokens: Object.fromEntries(tokens.map((t) => [t.name, t.token])) };
  await fs.writeFile(temp, `${JSON.stringify(body, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  try {
    await fs.rename(temp, file);
  } catch (error) {
    await fs.rm(temp, { force: true });
    throw error;
  }
}

/**
 * The project's tokens, making the file with a `default` token when it holds none. A file that
 * others may read is narrowed to 0600 first: a token is a password.
 */
export async function projectTokens(root: string): Promise<ServeToken[]> {
  const file = tokensPath(root);
  try {
    const stat = await fs.stat(file);
    if ((stat.mode & 0o077) !== 0) await fs.chmod(file, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const tokens = readTokensSync(root);
  if (tokens.length > 0) return tokens;
  const made = [{ name: DEFAULT_TOKEN_NAME, token: newToken() }];
  await writeTokens(root, made);
  return made;
}

/** Gives `name` a new token (adding it when it is new); the old one stops working at once. */
export async function rotateToken(root: string, name: string): Promise<ServeToken> {
  checkTokenName(name);
  const tokens = readTokensSync(root);
  const fresh = { name, token: newToken() };
  const at = tokens.findIndex((t) => t.name === name);
  if (at < 0) tokens.push(fresh);
  else tokens[at] = fresh;
  await writeTokens(root, tokens);
  return fresh;
}

/** Removes `name`'s token; false when there was none. */
export async function removeToken(root: string, name: string): Promise<boolean> {
  const tokens = readTokensSync(root);
  const kept = tokens.filter((t) => t.name !== name);
  if (kept.length === tokens.length) return false;
  await writeTokens(root, kept);
  return true;
}
