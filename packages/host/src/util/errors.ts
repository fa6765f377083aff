/** The message of anything thrown: an `Error`'s own `message`, anything else as `String` renders it. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The `code` of a thrown value (`ENOENT`, `EACCES`, …) when it has a string one. */
export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
