/**
 * The `Origin` rule of the HTTP server: which browser pages may talk to `/mcp` and the dashboard.
 * An origin is scheme, host and port together; a page served by another port of the same host is
 * another program's page (any local process can listen on 127.0.0.1:<some port>), so a rule that
 * compares host names alone lets every local web server's page in.
 */

/** The check for a server listening on one port. */
export type OriginCheck = (origin: string) => boolean;

/** The allowed origins, read once; `forPort` gives the check once the port is known. */
export interface OriginRule {
  /** The serialized origins accepted on `port`, in the order given (for error messages). */
  origins(port: number): readonly string[];
  forPort(port: number): OriginCheck;
}

/** `new URL(value).origin`, or undefined when that is not a plain tuple origin equal to `value`. */
function serialized(value: string): string | undefined {
  try {
    const origin = new URL(value).origin;
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}

/**
 * Reads `allowed`: a bare host name (`localhost`, `127.0.0.1`, `[::1]`) stands for
 * `http://NAME:<port>`, the server's own origin under that name; an entry with `://` is a full
 * origin taken as given (a TLS proxy in front, a browser-based client on purpose). A header is
 * accepted only when it is exactly one of these serialized origins, as browsers send them:
 * lowercase, no path, no userinfo, the default port left out. Throws a RangeError naming an entry
 * that is not an origin (before the server listens).
 */
export function originRule(allowed: readonly string[]): OriginRule {
  const full: string[] = [];
  const names: string[] = [];
  for (const entry of allowed) {
    if (entry.includes('://')) {
      const origin = serialized(entry);
      // `https://x/` serializes to `https://x`: a trailing slash is harmless, a path is a mistake.
      if (origin === undefined || (entry !== origin && entry !== `${origin}/`)) {
        throw new RangeError(
          `serveHttp: allowedOrigins: "${entry}" is not an origin (scheme://host[:port], no path)`,
        );
      }
      full.push(origin);
    } else {
      names.push(entry.toLowerCase());
    }
  }
  const origins = (port: number) => [
    ...names.flatMap((name) => serialized(`http://${name}:${port}`) ?? []),
    ...full,
  ];
  return {
    origins,
    forPort(port) {
      const accepted = new Set(origins(port));
      return (origin) => accepted.has(origin);
    },
  };
}
