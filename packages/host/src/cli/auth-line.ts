/** The line a server without authentication prints: marked, so nobody mistakes it for the usual one. */
export function loud(summary: string): string {
  return `WARNING: ${summary}`;
}
