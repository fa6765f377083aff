/**
 * The two denials every capability shares. Each names the permission the plugin declares and the
 * config key that grants it, and says which of the two is missing.
 */
import { type CapabilityError, denied } from './errors.js';
import { urlPort } from './host-patterns.js';

/** A permission list and the key under `plugins.<id>.grants` that grants its entries. */
export interface PermissionKind {
  /** e.g. `permissions.net`, `permissions.fs.read`. */
  readonly permission: string;
  /** e.g. `net`, `fs.read`. */
  readonly grantKey: string;
}

export const NET: PermissionKind = { permission: 'permissions.net', grantKey: 'net' };
export const FS_READ: PermissionKind = { permission: 'permissions.fs.read', grantKey: 'fs.read' };
export const FS_WRITE: PermissionKind = { permission: 'permissions.fs.write', grantKey: 'fs.write' };

/** A request a plugin's permissions do not cover. */
export interface Uncovered {
  /** The capability called: `fetch`, `fs.readFile`, … */
  readonly capability: string;
  /** The request as denials name it, e.g. `ctx.fetch to "api.example.com"`. */
  readonly subject: string;
  readonly pluginId: string;
}

/** The plugin never asked for `value`: both the declaration and the grant are missing. */
export function notDeclared(request: Uncovered, kind: PermissionKind, value: string): CapabilityError {
  return refuse(
    request,
    `must declare ${kind.permission} [${JSON.stringify(value)}] and config must grant it at ` +
      grantKey(request, kind),
  );
}

/** The plugin declares `value` (as written there) but config does not grant it. */
export function notGranted(request: Uncovered, kind: PermissionKind, value: string): CapabilityError {
  return refuse(
    request,
    `declares ${kind.permission} [${JSON.stringify(value)}] but config does not grant it; add ` +
      `${JSON.stringify(value)} to ${grantKey(request, kind)}`,
  );
}

/**
 * The plugin declares the host as `declared` but for another port: a pattern without a port
 * means the scheme's default port only, so `127.0.0.1` does not cover `127.0.0.1:8080`.
 */
export function otherPort(request: Uncovered, declared: string, url: URL): CapabilityError {
  const port = urlPort(url);
  const wanted = port === undefined ? url.host : `${declared.replace(/:\d+$/, '')}:${port}`;
  const what = /:\d+$/.test(declared)
    ? `declares ${NET.permission} [${JSON.stringify(declared)}], which is another port`
    : `declares ${NET.permission} [${JSON.stringify(declared)}] without a port, which allows only the default port (80 for http:, 443 for https:)`;
  return refuse(
    request,
    `${what}; for port ${port ?? '?'} declare ${JSON.stringify(wanted)} in ${NET.permission} and grant it at ${grantKey(request, NET)}`,
  );
}

function refuse({ capability, subject, pluginId }: Uncovered, why: string): CapabilityError {
  return denied(capability, `${subject} is not allowed: plugin ${JSON.stringify(pluginId)} ${why}`);
}

function grantKey({ pluginId }: Uncovered, kind: PermissionKind): string {
  return `plugins.${pluginId}.grants.${kind.grantKey}`;
}
