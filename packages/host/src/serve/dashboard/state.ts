/** `GET /api/state`: the host's plan, plugins, MCP servers, skills, isolates and pending approvals. */
import type { PluginPermissions, ToolDescriptor } from '@toolhost/plugin-sdk';
import { effectivePermissions, missingGrants } from '../../capabilities/grants.js';
import { deferredNames } from '../../core/dispatch/deferral.js';
import { formatOwner } from '../../core/refs.js';
import type { ToolHost } from '../../host/host.js';
import { internalsOf } from '../../host/internals.js';
import type { PluginReport } from '../../sources/plugins/types.js';
import { processMemory } from '../../util/memory.js';
import type {
  DashboardHiddenTool,
  DashboardMcpServer,
  DashboardPlugin,
  DashboardTool,
  ErrorPlace,
} from './types.js';

/** `plugins/x/index.ts:3:14: Unexpected "}"` → file, line, column; the first place a message names. */
const PLACE = /(?:^|\s|\()((?:[\w.@-]+[\\/])*[\w.@-]+\.(?:[cm]?[jt]sx?|json)):(\d+):(\d+)/;

/** A build or load error with where it points, when its text says. */
export function errorPlace(message: string): ErrorPlace {
  const match = PLACE.exec(message);
  if (match === null) return { message };
  return { message, file: match[1] as string, line: Number(match[2]), column: Number(match[3]) };
}

type ExecutorKind = DashboardTool['kind'];

function ownerKind(descriptor: ToolDescriptor): ExecutorKind | undefined {
  const kind = descriptor.executor?.kind ?? descriptor.owner.kind;
  return kind === 'custom' ? 'core' : kind;
}

/** Declared permissions in one vocabulary: `net "api.example.com"`, `fs.read "notes"`, `env "KEY"`. */
function permissionWords(permissions: PluginPermissions): string[] {
  const words = (kind: string, values: readonly unknown[] | undefined) =>
    (values ?? []).map(
      (value) => `${kind} ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`,
    );
  return [
    ...words('net', permissions.net),
    ...words('fs.read', permissions.fs?.read),
    ...words('fs.write', permissions.fs?.write),
    ...words('env', permissions.env),
  ];
}

function plugin(host: ToolHost, report: PluginReport, toolsOf: Map<string, string[]>): DashboardPlugin {
  const permissions = report.manifest?.permissions ?? {};
  const grants = host.config.plugins?.[report.id]?.grants ?? {};
  const granted = effectivePermissions(permissions, grants);
  const message = report.diagnostics.join('\n');
  return {
    id: report.id,
    status: report.status,
    ...(report.status === 'loaded' || message === '' ? {} : { error: errorPlace(message) }),
    tools: report.manifest?.tools.map((t) => t.name) ?? toolsOf.get(report.id) ?? [],
    permissions: {
      asked: permissionWords(permissions),
      granted: permissionWords({ net: granted.net, fs: granted.fs, env: granted.env }),
      missing: missingGrants(permissions, grants, report.id)
        .filter((m) => m.reason === 'not-granted')
        .map(({ permission, configKey }) => ({
          permission: permission.replace(/^permissions\./, ''),
          configKey,
        })),
    },
  };
}

/** The whole state the page starts from; events keep it current. */
export async function dashboardState(host: ToolHost) {
  const plan = host.plan();
  const snapshot = internalsOf(host).snapshot();
  const deferred = deferredNames(
    plan.visible.map((entry) => entry.descriptor),
    snapshot.registry.tools,
    snapshot.policy,
  );
  const visible: DashboardTool[] = plan.visible.map(({ descriptor, executor }) => ({
    name: descriptor.name,
    ...(descriptor.title === undefined ? {} : { title: descriptor.title }),
    description: descriptor.description,
    owner: formatOwner(descriptor.owner),
    kind: executor.kind,
    ...(descriptor.annotations === undefined ? {} : { annotations: descriptor.annotations }),
    deferred: deferred.has(descriptor.name),
    inputSchema: descriptor.inputSchema,
    ...(descriptor.outputSchema === undefined ? {} : { outputSchema: descriptor.outputSchema }),
  }));
  const hidden: DashboardHiddenTool[] = plan.hidden.map(({ descriptor, diagnostics }) => {
    const kind = ownerKind(descriptor);
    return {
      name: descriptor.name,
      owner: formatOwner(descriptor.owner),
      ...(kind === undefined ? {} : { kind }),
      description: descriptor.description,
      diagnostics: diagnostics.map(({ reason, message }) => ({ reason, message })),
    };
  });
  // Tool names of plugins without a manifest (failed to build or load), from the plan.
  const toolsOf = new Map<string, string[]>();
  for (const { descriptor } of [...plan.visible, ...plan.hidden]) {
    const owner = descriptor.owner;
    if (owner.kind !== 'plugin' || descriptor.name === formatOwner(owner)) continue;
    toolsOf.set(owner.pluginId, [...(toolsOf.get(owner.pluginId) ?? []), descriptor.name]);
  }
  const mcpServers: DashboardMcpServer[] = host.mcpServers.map((server) => ({
    id: server.name,
    state: server.state,
    ...(server.reason === undefined ? {} : { error: server.reason }),
    tools: server.tools,
  }));
  return {
    version: host.version,
    root: host.root,
    tools: { visible, hidden },
    plugins: host.plugins.map((report) => plugin(host, report, toolsOf)),
    mcpServers,
    skills: host.skills(),
    isolates: { ...(await host.isolates()) },
    /** The host process's own memory (the executor's is `isolates.memory` with the process sandbox). */
    hostMemory: processMemory(),
    approvals: host.approvals.pending(),
  };
}
