import type { ToolhostConfig } from '../config/schema.js';

/**
 * The secret values the config grants or holds, which no audit record may contain: each
 * variable a plugin, `exec` or an MCP server is granted (`grants.env`, `sandbox.env`), an MCP
 * server's `env` and `headers` values (and a header's credential after its scheme), and
 * `serve.requestStateKey`. The serve tokens are added by the server that knows them.
 */
export function grantedSecrets(config: ToolhostConfig, env: NodeJS.ProcessEnv): string[] {
  const found: string[] = [];
  const variable = (name: string) => {
    const value = env[name];
    if (value !== undefined && value !== '') found.push(value);
  };
  for (const plugin of Object.values(config.plugins ?? {}))
    for (const name of plugin.grants?.env ?? []) variable(name);
  const builtins = config.builtins;
  const exec = typeof builtins === 'object' ? builtins.exec : undefined;
  if (typeof exec?.sandbox === 'object') for (const name of exec.sandbox.env ?? []) variable(name);
  for (const server of Object.values(config.mcpServers ?? {})) {
    if ('command' in server) {
      found.push(...Object.values(server.env ?? {}));
      if (typeof server.sandbox === 'object') for (const name of server.sandbox.env ?? []) variable(name);
    } else {
      for (const value of Object.values(server.headers ?? {})) {
        found.push(value);
        const credential = /^\S+\s+(\S.*)$/.exec(value)?.[1];
        if (credential !== undefined) found.push(credential);
      }
    }
  }
  found.push(...Object.values(config.telemetry?.otlp?.headers ?? {}));
  const key = config.serve?.requestStateKey;
  if (key !== undefined) found.push(key);
  return found;
}
