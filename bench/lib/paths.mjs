// Where the benches find what they run: this checkout's CLI, the echo plugin they serve, and the
// published MCP server they compare against: one place for every bench that needs them.
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/** The checkout's root. */
export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The `toolhost` CLI of this checkout (run after `npm run build`). */
export const TOOLHOST_BIN = path.join(REPO, 'packages', 'host', 'bin', 'toolhost.js');

/** A process that only copies bytes between its stdio and its child's (byte-relay.mjs): the served chain's floor. */
export const BYTE_RELAY = path.join(REPO, 'bench', 'lib', 'byte-relay.mjs');

/** The benches' echo plugin (`echo_text`), copied into each bench's project. */
export const ECHO_PLUGIN = path.join(REPO, 'bench', 'fixtures', 'plugins', 'echo');

/** The published `server-everything` entry (its `mcp-server-everything` bin): the plain MCP server. */
export const EVERYTHING_BIN = (() => {
  const manifest = require.resolve('@modelcontextprotocol/server-everything/package.json');
  return path.join(path.dirname(manifest), require(manifest).bin['mcp-server-everything']);
})();
