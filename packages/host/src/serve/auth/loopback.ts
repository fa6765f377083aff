const LOOPBACK = /^(?:127(?:\.\d{1,3}){3}|::1|\[::1\]|localhost)$/i;

/**
 * Whether `hostname` (what the server binds) is reachable from this machine only. A module of its
 * own: `toolhost serve` checks its flags with it before it knows whether it serves HTTP, and the
 * gate's module loads the JWT library.
 */
export function isLoopback(hostname: string): boolean {
  return LOOPBACK.test(hostname);
}
