import type { AvailabilityExpression, AvailabilitySignal } from './types.js';

/** Builders for availability expressions: `allOf(env('GITHUB_TOKEN'), context('channel', 'cli'))`. */

export function always(): AvailabilitySignal {
  return { kind: 'always' };
}

export function auth(providerId: string): AvailabilitySignal {
  return { kind: 'auth', providerId };
}

export function config(path: string, check: 'exists' | 'non-empty' = 'exists'): AvailabilitySignal {
  return { kind: 'config', path, check };
}

export function env(name: string): AvailabilitySignal {
  return { kind: 'env', name };
}

export function pluginEnabled(pluginId: string): AvailabilitySignal {
  return { kind: 'plugin-enabled', pluginId };
}

export function context(key: string, equals?: string | number | boolean): AvailabilitySignal {
  return equals === undefined ? { kind: 'context', key } : { kind: 'context', key, equals };
}

export function allOf(...members: AvailabilityExpression[]): AvailabilityExpression {
  return { allOf: members };
}

export function anyOf(...members: AvailabilityExpression[]): AvailabilityExpression {
  return { anyOf: members };
}
