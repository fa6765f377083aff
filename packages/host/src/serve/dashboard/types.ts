/** The dashboard's contract: what `/api/state` and `/api/events` send (the page in `dashboard/` reads these). */
import type { ToolAnnotations, ToolResult } from '@toolhost/plugin-sdk';
import type { PendingApproval } from '../../core/dispatch/approvals.js';
import type { CallStatus } from '../../core/wrap/wrapper.js';
import type { PluginStatus } from '../../sources/plugins/types.js';

/** How `serveHttp` serves the dashboard beside `/mcp` (`toolhost dev` turns it on). */
export interface DashboardOptions {
  /** The folder of the page's files; default the package's own `dashboard/`. */
  readonly assetsDir?: string;
  /** Events kept for a page that connects later or resumes (`Last-Event-ID`); default 500. */
  readonly historySize?: number;
  /** Bytes waiting to be sent to one client before it is dropped as too slow; default 1 MiB. */
  readonly maxClientBufferBytes?: number;
  /** Interval of the `: ping` comment on every stream, ms; default 15 000. */
  readonly pingMs?: number;
  /** Event streams open at once; a new one closes the oldest (told not to reconnect). Default 8. */
  readonly maxStreams?: number;
}

/** A visible tool, as the page lists it. */
export interface DashboardTool {
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  /** `core`, `plugin:<id>`, `mcp:<id>`, `channel:<id>`, `custom` (formatOwner). */
  readonly owner: string;
  readonly kind: 'core' | 'plugin' | 'mcp' | 'channel';
  readonly annotations?: ToolAnnotations;
  /** Shown to a model only after a tool search (tools.defer, deferLoading, the token budget). */
  readonly deferred: boolean;
  readonly inputSchema: unknown;
  readonly outputSchema?: unknown;
}

/** A hidden tool and every reason it is hidden. */
export interface DashboardHiddenTool {
  readonly name: string;
  readonly owner: string;
  readonly kind?: 'core' | 'plugin' | 'mcp' | 'channel';
  readonly description: string;
  readonly diagnostics: readonly { readonly reason: string; readonly message: string }[];
}

/** Where a build or load error points, when its message says (`file:line:column: …`). */
export interface ErrorPlace {
  readonly message: string;
  readonly file?: string;
  readonly line?: number;
  readonly column?: number;
}

export interface DashboardPlugin {
  readonly id: string;
  readonly status: PluginStatus;
  readonly error?: ErrorPlace;
  readonly tools: readonly string[];
  readonly permissions: {
    /** Declared, as `net "api.example.com"`, `fs.read "notes"`, `env "KEY"`. */
    readonly asked: readonly string[];
    /** The declared ones config grants, in the same words. */
    readonly granted: readonly string[];
    /** Declared and not granted, with the config key that would grant each. */
    readonly missing: readonly { readonly permission: string; readonly configKey: string }[];
  };
}

export interface DashboardMcpServer {
  readonly id: string;
  readonly state: string;
  readonly error?: string;
  readonly tools: number;
}

/** Events of the stream; `seq` increases by one per event, `at` is epoch ms. */
export type DashboardEvent = { readonly seq: number; readonly at: number } & DashboardEventBody;

export type DashboardEventBody =
  | {
      readonly type: 'rebuild';
      readonly cause: string;
      readonly durationMs: number;
      readonly version: number;
      readonly diff: {
        readonly added: readonly string[];
        readonly removed: readonly string[];
        readonly changed: readonly string[];
      };
    }
  | ({ readonly type: 'plugin-error'; readonly plugin: string } & ErrorPlace)
  | ({ readonly type: 'config-error' } & ErrorPlace)
  | {
      readonly type: 'call';
      readonly phase: 'start';
      readonly callId: string;
      readonly sessionId: string;
      /** Who called (`token:ci`, `oauth:alice`), for MCP calls the endpoint authenticated. */
      readonly principal?: string;
      readonly source: 'mcp' | 'dashboard';
      readonly tool: string;
      readonly input: unknown;
    }
  | {
      readonly type: 'call';
      readonly phase: 'end';
      readonly callId: string;
      readonly sessionId: string;
      /** Who called (`token:ci`, `oauth:alice`), for MCP calls the endpoint authenticated. */
      readonly principal?: string;
      readonly source: 'mcp' | 'dashboard';
      readonly tool: string;
      readonly status: CallStatus;
      readonly durationMs: number;
      readonly result: unknown;
      readonly hooks?: { readonly blockedBy?: string; readonly rewroteBy?: readonly string[] };
    }
  | ({ readonly type: 'approval'; readonly phase: 'requested' | 'decided' } & Record<string, unknown>);

/** What `POST /api/call` answers. */
export interface DashboardCallResponse {
  readonly status: CallStatus;
  readonly durationMs: number;
  readonly result: ToolResult;
}

export type { PendingApproval };
