import * as path from 'node:path';
import type { AvailabilityContext } from '@toolhost/plugin-sdk';
import { CodeModeSource } from '../code-mode/index.js';
import { isolateSettingsOf } from '../config/isolates.js';
import { sandboxSettingOf } from '../config/sandbox.js';
import type { ToolhostConfig } from '../config/schema.js';
import type { SharedSandbox } from '../sandbox/shared.js';
import { ApiSource } from '../sources/api.js';
import { BuiltinSource } from '../sources/builtin/source.js';
import { McpSource } from '../sources/mcp/source.js';
import type { McpServerConfig } from '../sources/mcp/types.js';
import { PluginSource } from '../sources/plugins/source.js';
import { SkillSource } from '../sources/skills/source.js';
import type { SourceAdapter } from '../types.js';
import type { ControlPaths } from '../workspace/control.js';
import type { EffectiveSettings } from './settings.js';
import type { HostCodeOptions } from './types.js';

/**
 * Where a host's folders are: resolved once, from the options given in code, and read by the
 * sources, the control-file guard and the watcher alike (so they can never disagree on a folder).
 * An empty string is refused before this (`options.ts`): it would name the root itself.
 */
export interface ProjectPaths {
  readonly root: string;
  /** The plugins folder: `pluginsDir` under the root, default `plugins` (a control path even when `false`). */
  readonly pluginsDir: string;
  /** The skills folder: `skillsDir` under the root, default `skills` (a control path even when `false`). */
  readonly skillsDir: string;
  /** The config file in force, if any. */
  readonly configFile: string | undefined;
  /** What the tools may not write, whatever their grants. */
  readonly controlPaths: ControlPaths;
}

export function projectPaths(
  root: string,
  code: HostCodeOptions,
  configFile: string | undefined,
): ProjectPaths {
  const pluginsDir = path.resolve(root, typeof code.pluginsDir === 'string' ? code.pluginsDir : 'plugins');
  // Closed to the tools even with `skillsDir: false`, as plugins/ is: another host on this root may read it.
  const skillsDir = path.resolve(root, typeof code.skillsDir === 'string' ? code.skillsDir : 'skills');
  return {
    root,
    pluginsDir,
    skillsDir,
    configFile,
    controlPaths: { pluginsDir, skillsDir, ...(configFile === undefined ? {} : { configFile }) },
  };
}

/** What the sources read from their host, each time they need it (reloads change them). */
export interface SourceContext {
  readonly paths: ProjectPaths;
  readonly code: HostCodeOptions;
  readonly config: () => ToolhostConfig;
  readonly settings: () => EffectiveSettings;
  /** Availability facts given in code, if any: their `env` is where granted variables come from. */
  readonly availability: () => AvailabilityContext | undefined;
  readonly sandbox: SharedSandbox;
}

/** A host's sources, by name, and all of them in merge order. */
export interface HostSources {
  readonly plugins: PluginSource | undefined;
  readonly mcp: McpSource;
  readonly skills: SkillSource | undefined;
  readonly api: ApiSource;
  /** Built-in, code mode, skills, plugins, MCP, custom: the merge order. */
  readonly all: readonly SourceAdapter[];
}

/** The sources of a host; a new source is one more entry in `all`. */
export function createSources(context: SourceContext): HostSources {
  const { paths, code, config, settings, availability, sandbox } = context;
  const { root, controlPaths, configFile } = paths;
  const env = () => availability()?.env as NodeJS.ProcessEnv | undefined;
  const builtin = new BuiltinSource(() => {
    const builtins = settings().builtins;
    const given = env();
    return {
      ...(builtins === false ? {} : builtins),
      root,
      // Disabled built-ins still exist (policy records them); they know the control files.
      controlPaths,
      callTimeoutMs: settings().limits.timeoutMs,
      jail: sandboxSettingOf(config()).jail,
      ...(given === undefined ? {} : { env: given }),
    };
  });
  const plugins =
    code.pluginsDir === false
      ? undefined
      : new PluginSource({
          root,
          dir: paths.pluginsDir,
          skillsDir: paths.skillsDir,
          ...(configFile === undefined ? {} : { configFile }),
          cache: code.cache ?? true,
          sandbox: () => sandbox.get(),
          settings: () => ({
            isolates: isolateSettingsOf(config()),
            plugins: settings().pluginSettings,
            limits: settings().limitsTable,
            // Granted variables come from the real environment (or the one given in code), never
            // from the subset `signals.env` shows to availability checks.
            env: availability()?.env ?? process.env,
          }),
        });
  const given = env();
  const mcp = new McpSource({
    cwd: root,
    bridge: { ...code.mcp, controlPaths, ...(given === undefined ? {} : { env: given }) },
    settings: () => ({
      servers: (config().mcpServers ?? {}) as Record<string, McpServerConfig>,
      callTimeout: settings().limitsTable.mcpCall,
      jail: sandboxSettingOf(config()).jail,
    }),
  });
  const skills =
    code.skillsDir === false
      ? undefined
      : new SkillSource({
          dir: paths.skillsDir,
          root,
          configFile: configFile === undefined ? 'toolhost.config.json' : path.basename(configFile),
          facts: () => ({
            env: settings().availability.env ?? {},
            config: config(),
            platform: process.platform,
            path: process.env.PATH ?? '',
            ...(process.env.PATHEXT === undefined ? {} : { pathExt: process.env.PATHEXT }),
          }),
          maxFileBytes: () => settings().limitsTable.skillFileBytes,
        });
  const api = new ApiSource(code.customTools);
  return {
    plugins,
    mcp,
    skills,
    api,
    all: [
      builtin,
      new CodeModeSource({
        runScript: (source, options) => sandbox.get().runScript(source, options),
        limits: () => settings().limitsTable.codeMode,
      }),
      ...(skills ? [skills] : []),
      ...(plugins ? [plugins] : []),
      mcp,
      api,
    ],
  };
}
