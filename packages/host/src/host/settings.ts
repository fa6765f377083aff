import type { AvailabilityContext } from '@toolhost/plugin-sdk';
import { type CallLimits, type LimitsTable, resolveLimits } from '../config/limits.js';
import type { ToolhostConfig } from '../config/schema.js';
import { type ApprovalSettings, DEFAULT_APPROVAL_TIMEOUT_MS } from '../core/dispatch/approvals.js';
import type { PrincipalRule } from '../core/dispatch/principals.js';
import type { CodeModeSettings } from '../core/dispatch/session.js';
import { CODE_MODE_CONTEXT_KEY } from '../core/register/code-mode.js';
import type { BuiltinToolsOptions } from '../sources/builtin/index.js';
import type { PluginSettings } from '../sources/plugins/types.js';
import type { ToolPolicy } from '../types.js';

/** What code gives beside the config (the config given in code is already laid over the file's). */
export interface SettingOverrides {
  /** Availability facts; replace the config's `signals`. */
  readonly availability?: AvailabilityContext;
}

/** Everything the host derives from the config and the API options. */
export interface EffectiveSettings {
  readonly builtins: Omit<BuiltinToolsOptions, 'root'> | false;
  readonly policy: ToolPolicy;
  /** Every limit, resolved by the one rule of limits.ts. */
  readonly limitsTable: LimitsTable;
  readonly limits: CallLimits;
  /** Code mode: whether sessions use it unless they say. */
  readonly codeMode: CodeModeSettings;
  /** `tools.approve` and `approvals`. */
  readonly approvals: ApprovalSettings;
  /** Config `principals`, in order. */
  readonly principals: readonly PrincipalRule[];
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

/** `plugins.<id>.overrides`, by plugin id; undefined when no plugin names one. */
function overridesOf(config: ToolhostConfig): Record<string, readonly string[]> | undefined {
  const entries = Object.entries(config.plugins ?? {}).flatMap(([id, settings]) =>
    settings.overrides === undefined ? [] : [[id, settings.overrides] as const],
  );
  return entries.length === 0 ? undefined : Object.fromEntries(entries);
}

/** Config `principals` as rules, in the config's order. */
function principalsOf(config: ToolhostConfig): PrincipalRule[] {
  return Object.entries(config.principals ?? {}).map(([name, entry]) => {
    const key = `principals.${name}.tools.approve`;
    const tools = entry.tools;
    return {
      match: entry.match,
      overlay: {
        name,
        ...(tools?.allow === undefined ? {} : { allow: tools.allow }),
        ...(tools?.deny === undefined ? {} : { deny: tools.deny }),
        ...(tools?.approve === undefined
          ? {}
          : {
              approve: tools.approve.map((rule) =>
                typeof rule === 'string' ? { tool: rule, key } : { ...rule, key },
              ),
            }),
        ...(tools?.defer === undefined ? {} : { defer: tools.defer }),
        ...(entry.approvals?.mcpClients === undefined ? {} : { mcpClients: entry.approvals.mcpClients }),
      },
    };
  });
}

/** The settings of a config (the file's, with the code's laid over it: see `layerConfig`). */
export function effectiveSettings(
  config: ToolhostConfig,
  overrides: SettingOverrides,
  env: NodeJS.ProcessEnv,
): EffectiveSettings {
  const builtins = builtinsOf(config);
  const allow = config.tools?.allow;
  const deny = config.tools?.deny;
  const defer = config.tools?.defer;
  const catalog = config.tools?.catalog;
  const replaceable = overridesOf(config);
  const limitsTable = resolveLimits(config.limits);
  const codeMode = config.tools?.codeMode ?? false;
  const availability = overrides.availability ?? {
    env: envOf(config, env),
    ...(config.signals?.auth === undefined ? {} : { auth: config.signals.auth }),
    ...(config.signals?.config === undefined ? {} : { config: config.signals.config }),
    ...(config.signals?.context === undefined ? {} : { context: config.signals.context }),
  };
  return {
    builtins,
    policy: {
      builtins: builtins !== false,
      ...(allow === undefined ? {} : { allow }),
      ...(deny === undefined || deny.length === 0 ? {} : { deny }),
      ...(defer === undefined || defer.length === 0 ? {} : { defer }),
      ...(catalog === undefined ? {} : { catalog }),
      ...(replaceable === undefined ? {} : { overrides: replaceable }),
    },
    limitsTable,
    limits: limitsTable.call,
    codeMode: { enabled: codeMode },
    approvals: {
      rules: (config.tools?.approve ?? []).map((entry) =>
        typeof entry === 'string' ? { tool: entry } : entry,
      ),
      timeoutMs: config.approvals?.timeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS,
      mcpClients: config.approvals?.mcpClients ?? [],
    },
    principals: principalsOf(config),
    // Code mode's tools are visible where this fact is true (sessions set their own): the host's
    // plan (`toolhost list`, diffs) shows them exactly when `tools.codeMode` is on.
    availability: {
      ...availability,
      context: { ...availability.context, [CODE_MODE_CONTEXT_KEY]: codeMode },
    },
    pluginSettings: (config.plugins ?? {}) as Readonly<Record<string, PluginSettings>>,
  };
}
