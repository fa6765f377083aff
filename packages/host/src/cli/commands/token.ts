import {
  projectTokens,
  readTokensSync,
  removeToken,
  rotateToken,
  TOKENS_FILE,
} from '../../serve/auth/tokens.js';
import { parseCommand, UsageError } from '../args.js';
import { FLAGS } from '../flags.js';
import type { Io } from '../io.js';
import { resolveProject } from '../project.js';
import { EXIT } from '../types.js';

/**
 * `toolhost token`: the project's bearer tokens for `serve --http` and `dev` (kept in
 * `.toolhost/serve-tokens.json`, mode 0600). Without flags it prints them, making the `default`
 * one when there is none. `--rotate NAME` gives NAME a new token (adding NAME when new), and
 * `--remove NAME` removes it; running servers honour either from their next request.
 */
export async function token(argv: readonly string[], io: Io): Promise<number> {
  const { values } = parseCommand('token', argv, FLAGS.token.options);
  if (values.rotate !== undefined && values.remove !== undefined) {
    throw new UsageError('give --rotate or --remove, not both');
  }
  const project = await resolveProject(values, { forHost: false });
  const root = project.root;
  if (values.remove !== undefined) {
    if (!(await removeToken(root, values.remove))) {
      io.err.write(`toolhost: no token named ${JSON.stringify(values.remove)} in ${TOKENS_FILE}\n`);
      return EXIT.failed;
    }
    io.err.write(`toolhost: removed token ${values.remove}; servers refuse it from their next request\n`);
    return EXIT.ok;
  }
  if (values.rotate !== undefined) {
    let fresh: Awaited<ReturnType<typeof rotateToken>>;
    try {
      fresh = await rotateToken(root, values.rotate);
    } catch (error) {
      if ((error as { code?: unknown }).code === 'token-file') throw new UsageError((error as Error).message);
      throw error;
    }
    io.out.write(values.json === true ? `${JSON.stringify(fresh)}\n` : `${fresh.name}\t${fresh.token}\n`);
    io.err.write(
      `toolhost: ${fresh.name} has a new token; the old one is refused from the next request on\n`,
    );
    return EXIT.ok;
  }
  const tokens = readTokensSync(root).length > 0 ? readTokensSync(root) : await projectTokens(root);
  if (values.json === true) {
    io.out.write(`${JSON.stringify({ tokens })}\n`);
  } else {
    for (const t of tokens) io.out.write(`${t.name}\t${t.token}\n`);
  }
  return EXIT.ok;
}
