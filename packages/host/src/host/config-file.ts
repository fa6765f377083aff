import * as path from 'node:path';
import { ConfigError, loadConfigFile } from '../config/load.js';
import type { ToolhostConfig } from '../config/schema.js';
import type { HostError } from './types.js';

/** The config file's config (the last one that validated), and whether the file exists. */
export interface ConfigState {
  readonly config: ToolhostConfig;
  readonly found: boolean;
}

/**
 * The config file a host starts with: the one named by `configFile` (it must exist), else
 * `<root>/toolhost.config.json` when it exists, or none with `configFile: false`. An invalid
 * file, or a named file that does not exist, is a `ConfigError` listing every problem: the host
 * refuses to start.
 */
export async function readStartConfig(
  configFile: string | false | undefined,
  root: string,
): Promise<ConfigState & { readonly file: string | undefined }> {
  if (configFile === false) return { config: {}, file: undefined, found: false };
  const file = path.resolve(root, configFile ?? 'toolhost.config.json');
  const outcome = await loadConfigFile(file);
  if (!outcome.ok) throw new ConfigError(outcome.issues);
  if (!outcome.found && configFile !== undefined) {
    throw new ConfigError([{ file, path: '(root)', message: 'the config file does not exist' }]);
  }
  return { config: outcome.config, file, found: outcome.found };
}

/**
 * Reads the config file again. An invalid one is a `config` error, and the last good config stays
 * in force. So does a file that was in force and is now gone: silently falling back to defaults
 * would drop every deny rule (restore the file, or restart, to change that).
 */
export async function rereadConfig(
  file: string,
  previous: ConfigState,
  named: boolean,
): Promise<ConfigState | HostError> {
  const loaded = await loadConfigFile(file);
  if (loaded.ok && !loaded.found && (previous.found || named)) {
    const issues = [
      { file, path: '(root)', message: 'the config file is gone; the last good config stays in force' },
    ];
    return { kind: 'config', issues, message: new ConfigError(issues).message };
  }
  if (!loaded.ok)
    return { kind: 'config', issues: loaded.issues, message: new ConfigError(loaded.issues).message };
  return { config: loaded.config, found: loaded.found };
}
