/**
 * The grant vocabulary of the config: network hosts, folders to read and to write, environment
 * variable names. Plugins' `grants` are written in it, and so are the process tools' `sandbox`
 * objects (process-sandbox.ts).
 */

/**
 * What config grants a plugin, at `plugins.<id>.grants`. Same vocabulary as the plugin's declared
 * `PluginPermissions`; nothing here takes effect unless the plugin declares it too.
 */
export interface PluginGrants {
  /**
   * Host patterns: `api.example.com`, `*.example.com` (subdomains only), optional `:port`. An IP
   * literal (`10.0.0.5:8080`) or `localhost` also lets `ctx.fetch` connect to that loopback,
   * private or other special-purpose address, which is refused otherwise whatever name leads there.
   */
  readonly net?: readonly string[];
  /** Folders relative to the project root. A write grant lets the plugin read that folder too. */
  readonly fs?: { readonly read?: readonly string[]; readonly write?: readonly string[] };
  /** Environment variable names. */
  readonly env?: readonly string[];
}
