import { hostname } from 'node:os';
import * as path from 'node:path';
import { AuditFile } from '../audit/log.js';
import { createRedactor, DEFAULT_REDACT_KEYS, type Redactor } from '../audit/redact.js';
import { grantedSecrets } from '../audit/secrets.js';
import { AuditTrail } from '../audit/trail.js';
import type { ToolhostConfig } from '../config/schema.js';
import type { ToolHost } from '../host/host.js';

/** Where a serving process keeps its trail, from config `audit`. */
export interface ServeAuditOptions {
  /** The file's name without `.jsonl`; default `<machine>-<port>` for HTTP. */
  readonly name: string;
  /** More secret values no record may hold (the serve tokens): the same array while they hold. */
  readonly secrets?: () => readonly string[];
}

const NONE: readonly string[] = [];

/**
 * The trail of one serving process of `host`, or undefined when config `audit.enabled` is false.
 * Every approval of the host is recorded; the server records its calls. The redactor is made
 * again when the config or the extra secrets change (a reload, a rotated token).
 */
export function serveAudit(
  host: ToolHost,
  options: ServeAuditOptions,
): { trail: AuditTrail; stop: () => void } | undefined {
  const settings = host.config.audit;
  if (settings?.enabled === false) return undefined;
  const file = new AuditFile({
    dir: path.resolve(host.root, settings?.dir ?? path.join('.toolhost', 'audit')),
    name: options.name,
    ...(settings?.maxBytes === undefined ? {} : { maxBytes: settings.maxBytes }),
    ...(settings?.keep === undefined ? {} : { keep: settings.keep }),
  });
  let made: { config: ToolhostConfig; extra: readonly string[]; redactor: Redactor } | undefined;
  const redactor = (): Redactor => {
    const config = host.config;
    // The same array until the tokens change (project-tokens.ts), so this is one comparison.
    const extra = options.secrets?.() ?? NONE;
    if (made === undefined || made.config !== config || made.extra !== extra) {
      made = {
        config,
        extra,
        redactor: createRedactor(
          [...grantedSecrets(config, process.env), ...extra],
          config.audit?.redactKeys ?? DEFAULT_REDACT_KEYS,
        ),
      };
    }
    return made.redactor;
  };
  const trail = new AuditTrail(file, redactor);
  const stop = host.approvals.on((event) => trail.approval(event));
  return {
    trail,
    stop: () => {
      stop();
      trail.close();
    },
  };
}

/** The trail file's name for an HTTP server on `port`: one per machine and port. */
export function httpAuditName(port: number): string {
  return `${hostname().replace(/[^A-Za-z0-9_.-]/g, '_')}-${port}`;
}
