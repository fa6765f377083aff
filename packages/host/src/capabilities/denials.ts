/**
 * The two denials every capability shares. Each names the permission the plugin declares and the
 * config key that grants it, and says which of the two is missing.
 */
import { type CapabilityError, denied } from './errors.js';

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

function refuse({ capability, subject, pluginId }: Uncovered, why: string): CapabilityError {
  return denied(capability, `${subject} is not allowed: plugin ${JSON.stringify(pluginId)} ${why}`);
}

function grantKey({ pluginId }: Uncovered, kind: PermissionKind): string {
  return `plugins.${pluginId}.grants.${kind.grantKey}`;
}
