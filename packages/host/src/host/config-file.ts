import * as path from 'node:path';
import { ConfigError, loadConfigFile, parseConfig } from '../config/load.js';
import type { ToolhostConfig } from '../config/schema.js';
import type { HostError, HostOptions } from './types.js';

/** The config in force, and whether it came from a file that exists. */
export interface ConfigState {
  readonly config: ToolhostConfig;
  readonly found: boolean;
}

/**
 * The config a host starts with: given as an object, or read from a file (default
 * `<root>/toolhost.config.json`, which may be missing). An invalid config, or a named file that
 * does not exist, is a `ConfigError` listing every problem: the host refuses to start.
 */
export async function readStartConfig(
  options: HostOptions,
  root: string,
): Promise<ConfigState & { readonly file: string | undefined }> {
  if (typeof options.config === 'object') {
    const outcome = parseConfig(options.config, '(config object)');
    if (!outcome.ok) throw new ConfigError(outcome.issues);
    return { config: outcome.config, file: undefined, found: true };
  }
  const file = path.resolve(root, options.config ?? 'toolhost.config.json');
  const outcome = await loadConfigFile(file);
  if (!outcome.ok) throw new ConfigError(outcome.issues);
  if (!outcome.found && options.config !== undefined) {
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
