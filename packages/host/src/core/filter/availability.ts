import type {
  AvailabilityContext,
  AvailabilityExpression,
  AvailabilitySignal,
  HiddenReason,
  ToolDiagnostic,
} from '@toolhost/plugin-sdk';

/** Nesting deeper than this is treated like a cycle: no honest expression needs it. */
const MAX_DEPTH = 32;

type Node = AvailabilityExpression | null | undefined;

function isGroup(node: object): node is { allOf: readonly Node[] } | { anyOf: readonly Node[] } {
  return 'allOf' in node || 'anyOf' in node;
}

function unsupported(message: string): ToolDiagnostic {
  return { reason: 'unsupported-signal', message };
}

/**
 * Finds structural problems in an expression: empty groups, cycles, unknown signal kinds and
 * malformed signals. The planner hides such tools; the registry also warns about them when they
 * are registered, so an author learns at once rather than from a tool that silently disappears.
 */
export function checkAvailabilityExpression(expression: Node): ToolDiagnostic[] {
  const problems: ToolDiagnostic[] = [];
  const ancestors = new Set<object>();
  const visit = (node: Node, where: string, depth: number): void => {
    if (typeof node !== 'object' || node === null) {
      const what = node === null ? 'null' : node === undefined ? 'missing' : typeof node;
      problems.push(unsupported(`availability at ${where} is ${what}, not an expression`));
      return;
    }
    if (ancestors.has(node) || depth > MAX_DEPTH) {
      problems.push(unsupported(`availability at ${where} is cyclic (or nested deeper than ${MAX_DEPTH})`));
      return;
    }
    if (isGroup(node)) {
      const op = 'allOf' in node ? 'allOf' : 'anyOf';
      const members = (node as Record<string, unknown>)[op];
      if (!Array.isArray(members)) {
        problems.push(unsupported(`availability ${op} at ${where} is not an array`));
        return;
      }
      if (members.length === 0) {
        problems.push(unsupported(`availability ${op} at ${where} is empty: an empty group has no meaning`));
        return;
      }
      ancestors.add(node);
      for (const [i, member] of (members as Node[]).entries())
        visit(member, `${where}.${op}[${i}]`, depth + 1);
      ancestors.delete(node);
      return;
    }
    const problem = checkSignal(node as AvailabilitySignal);
    if (problem !== undefined) problems.push(unsupported(`availability at ${where}: ${problem}`));
  };
  // Only the whole expression may be absent (it means `always`); a group's member may not.
  if (expression !== undefined) visit(expression, '(root)', 0);
  return problems;
}

function nonBlankString(value: unknown): boolean {
  return typeof value === 'string' && value.trim() !== '';
}

const signalShape = {
  always: () => undefined,
  auth: (s) => (nonBlankString(s.providerId) ? undefined : 'auth needs a providerId'),
  config: (s) =>
    !nonBlankString(s.path)
      ? 'config needs a path'
      : s.check !== undefined && s.check !== 'exists' && s.check !== 'non-empty'
        ? `config check must be "exists" or "non-empty", not ${JSON.stringify(s.check)}`
        : undefined,
  env: (s) => (nonBlankString(s.name) ? undefined : 'env needs a variable name'),
  'plugin-enabled': (s) => (nonBlankString(s.pluginId) ? undefined : 'plugin-enabled needs a pluginId'),
  context: (s) => (nonBlankString(s.key) ? undefined : 'context needs a key'),
} satisfies {
  [K in AvailabilitySignal['kind']]: (signal: Record<string, unknown>) => string | undefined;
};

function checkSignal(signal: AvailabilitySignal): string | undefined {
  const kind = (signal as { kind?: unknown }).kind;
  if (typeof kind !== 'string' || !Object.hasOwn(signalShape, kind)) {
    return `unknown signal ${JSON.stringify(kind)}`;
  }
  return signalShape[kind as AvailabilitySignal['kind']](signal as unknown as Record<string, unknown>);
}

/** Looks up a dotted path (`a.b.c`) in a plain object tree, own properties only. */
function lookup(tree: unknown, path: string): unknown {
  let node = tree;
  for (const key of path.split('.')) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

function isEmptyValue(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (typeof value === 'string') return value.trim() === '';
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === 'object') return Object.keys(value).length === 0;
  return false;
}

function miss(reason: HiddenReason, signal: AvailabilitySignal, message: string): ToolDiagnostic[] {
  return [{ reason, message, signal }];
}

/** Evaluates one signal: no diagnostics means it holds. */
function evaluateSignal(signal: AvailabilitySignal, ctx: AvailabilityContext): ToolDiagnostic[] {
  switch (signal.kind) {
    case 'always':
      return [];
    case 'auth':
      return ctx.auth?.includes(signal.providerId)
        ? []
        : miss('auth-missing', signal, `no credentials for auth provider "${signal.providerId}"`);
    case 'config': {
      const value = lookup(ctx.config, signal.path);
      if (signal.check === 'non-empty') {
        return isEmptyValue(value)
          ? miss('config-missing', signal, `config "${signal.path}" is missing or empty`)
          : [];
      }
      return value === undefined ? miss('config-missing', signal, `config "${signal.path}" is not set`) : [];
    }
    case 'env':
      return nonBlankString(ctx.env?.[signal.name])
        ? []
        : miss('env-missing', signal, `environment variable ${signal.name} is not set (or blank)`);
    case 'plugin-enabled':
      return ctx.enabledPlugins?.includes(signal.pluginId)
        ? []
        : miss('plugin-disabled', signal, `plugin "${signal.pluginId}" is not enabled`);
    case 'context': {
      const has = ctx.context !== undefined && Object.hasOwn(ctx.context, signal.key);
      const value = has ? ctx.context?.[signal.key] : undefined;
      if (!has || value === undefined) {
        return miss('context-mismatch', signal, `session context has no "${signal.key}"`);
      }
      if (signal.equals !== undefined && value !== signal.equals) {
        return miss(
          'context-mismatch',
          signal,
          `session context "${signal.key}" is ${JSON.stringify(value)}, needs ${JSON.stringify(signal.equals)}`,
        );
      }
      return [];
    }
  }
}

/**
 * Evaluates an availability expression. Returns the diagnostics of every failing signal that
 * decides the outcome (all failing members of an `allOf`, every branch of a failed `anyOf`);
 * an empty array means available. Structural problems give `unsupported-signal` and nothing
 * else is evaluated, so a broken expression never makes a tool visible.
 */
export function evaluateAvailability(
  expression: AvailabilityExpression | undefined,
  ctx: AvailabilityContext,
): ToolDiagnostic[] {
  const structural = checkAvailabilityExpression(expression);
  if (structural.length > 0) return structural;
  if (expression === undefined) return [];
  const evaluate = (node: AvailabilityExpression): ToolDiagnostic[] => {
    if ('allOf' in node) return node.allOf.flatMap(evaluate);
    if ('anyOf' in node) {
      const failures: ToolDiagnostic[] = [];
      for (const member of node.anyOf) {
        const result = evaluate(member);
        if (result.length === 0) return [];
        failures.push(...result);
      }
      return failures;
    }
    return evaluateSignal(node, ctx);
  };
  return evaluate(expression);
}
