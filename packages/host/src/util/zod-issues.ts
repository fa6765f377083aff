/**
 * Schema issues (zod's, or any with a path and a message) rendered one way everywhere: a dotted
 * path into the value, `(root)` for the value itself, and a message a model can act on.
 */

/** One problem with a value. */
export interface Issue {
  /** Dotted path into the value, `(root)` for the value itself. */
  readonly path: string;
  readonly message: string;
}

/** What a zod `ZodError` (v3 or v4) carries, structurally, so this layer needs no zod import. */
export interface ZodErrorLike {
  readonly issues: readonly { readonly path: readonly PropertyKey[]; readonly message: string }[];
}

/** `['a', 0, 'b']` → `a.0.b`; the empty path is `(root)`. */
export function issuePath(path: readonly PropertyKey[]): string {
  return path.length === 0 ? '(root)' : path.map(String).join('.');
}

/** A zod error's issues, each at its dotted path with zod's message. */
export function zodIssues(error: ZodErrorLike): Issue[] {
  return error.issues.map((issue) => ({ path: issuePath(issue.path), message: issue.message }));
}

/** Issues as one line: `at "a.b": message; at "(root)": message`. */
export function issuesText(issues: readonly Issue[]): string {
  return issues.map((issue) => `at "${issue.path}": ${issue.message}`).join('; ');
}
