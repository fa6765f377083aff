import type { AvailabilityContext } from '@toolhost/plugin-sdk';
import { type CallLimits, type LimitsTable, resolveLimits, type SandboxLimits } from '../config/limits.js';
import type { ToolhostConfig } from '../config/schema.js';
import type { BuiltinToolsOptions } from '../sources/builtin/index.js';
import type { PluginSettings } from '../sources/plugins/manager.js';
import type { ToolPolicy } from '../types.js';
import type { HostOptions } from './types.js';

/** Options that override the config file, field by field. */
export interface SettingOverrides {
  readonly builtins?: Omit<BuiltinToolsOptions, 'root'> | false;
  readonly policy?: ToolPolicy;
  readonly availability?: AvailabilityContext;
  readonly limits?: Partial<CallLimits>;
  readonly pluginSettings?: Readonly<Record<string, PluginSettings>>;
  readonly pluginLimits?: Partial<SandboxLimits>;
  readonly mcpCallTimeoutMs?: number;
}

/** Everything the host derives from the config and the API options. */
export interface EffectiveSettings {
  readonly builtins: Omit<BuiltinToolsOptions, 'root'> | false;
  readonly policy: ToolPolicy;
  /** Every limit, resolved by the one rule of limits.ts. */
  readonly limitsTable: LimitsTable;
  readonly limits: CallLimits;
  readonly availability: AvailabilityContext;
  readonly pluginSettings: Readonly<Record<string, PluginSettings>>;
}

function builtinsOf(config: ToolhostConfig): Omit<BuiltinToolsOptions, 'root'> | false {
  const value = config.builtins;
  if (value === false) return false;
  if (value === true || value === undefined) return {};
  if (value.enabled === false) return false;
  return {
    ...(value.maxReadBytes === undefined ? {} : { maxReadBytes: value.maxReadBytes }),
    ...(value.exec === undefined ? {} : { exec: value.exec }),
    ...(value.controlFiles === undefined ? {} : { controlFiles: value.controlFiles }),
    ...(value.grep === undefined ? {} : { grep: value.grep }),
  };
}

/** Only the variables `signals.env` names (all of them when it is absent) are visible to `env()` checks. */
function envOf(config: ToolhostConfig, env: NodeJS.ProcessEnv): Record<string, string | undefined> {
  const names = config.signals?.env;
  if (names === undefined) return env;
  return Object.fromEntries(names.map((name) => [name, env[name]]));
}

/**
 * Merges the config file and the API options: an option given in code wins over the file, except
 * deny lists, which add up (a deny in either place denies).
 */
export function effectiveSettings(
  config: ToolhostConfig,
  overrides: SettingOverrides,
  env: NodeJS.ProcessEnv,
): EffectiveSettings {
  const builtins = overrides.builtins ?? builtinsOf(config);
  const allow = overrides.policy?.allow ?? config.tools?.allow;
  const deny = [...(config.tools?.deny ?? []), ...(overrides.policy?.deny ?? [])];
  const limitsTable = resolveLimits(config.limits, {
    ...(overrides.limits === undefined ? {} : { call: overrides.limits }),
    ...(overrides.pluginLimits === undefined ? {} : { plugin: overrides.pluginLimits }),
    ...(overrides.mcpCallTimeoutMs === undefined ? {} : { mcpCallTimeoutMs: overrides.mcpCallTimeoutMs }),
  });
  return {
    builtins,
    policy: {
      builtins: builtins !== false && overrides.policy?.builtins !== false,
      ...(allow === undefined ? {} : { allow }),
      ...(deny.length === 0 ? {} : { deny }),
    },
    limitsTable,
    limits: limitsTable.call,
    availability: overrides.availability ?? {
      env: envOf(config, env),
      ...(config.signals?.auth === undefined ? {} : { auth: config.signals.auth }),
      ...(config.signals?.config === undefined ? {} : { config: config.signals.config }),
      ...(config.signals?.context === undefined ? {} : { context: config.signals.context }),
    },
    pluginSettings: {
      ...(config.plugins as Record<string, PluginSettings> | undefined),
      ...overrides.pluginSettings,
    },
  };
}

/** The settings of a host: its config file, with the options given in code over it. */
export function hostSettings(options: HostOptions, config: ToolhostConfig): EffectiveSettings {
  const plugins = options.plugins === false ? undefined : options.plugins;
  return effectiveSettings(
    config,
    {
      ...(options.builtins === undefined ? {} : { builtins: options.builtins }),
      ...(options.policy === undefined ? {} : { policy: options.policy }),
      ...(options.availability === undefined ? {} : { availability: options.availability }),
      ...(options.limits === undefined ? {} : { limits: options.limits }),
      ...(plugins?.settings === undefined ? {} : { pluginSettings: plugins.settings }),
      ...(plugins?.limits === undefined ? {} : { pluginLimits: plugins.limits }),
      ...(options.mcp?.callTimeoutMs === undefined ? {} : { mcpCallTimeoutMs: options.mcp.callTimeoutMs }),
    },
    process.env,
  );
}
