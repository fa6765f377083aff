export { DEFAULT_CAPABILITY_LIMITS } from '../config/limits.js';
export { CapabilityError, type CapabilityErrorCode, isCapabilityError } from './errors.js';
export type { FetchReply } from './fetch.js';
export { cachingResolver, type FetchResolver, hostAddresses, systemResolver } from './fetch-resolve.js';
export {
  type FetchTransport,
  nodeTransport,
  type TransportRequest,
  type TransportResponse,
} from './fetch-transport.js';
export { normalizeFsRoot } from './fs-roots.js';
export { effectivePermissions, missingGrants } from './grants.js';
export { type HostPattern, parseHostPattern } from './host-patterns.js';
export { type GateRefusal, GateRules, openNetGate } from './net-gate.js';
export { createCapabilityProvider } from './provider.js';
export type {
  CapabilityLimits,
  CapabilityProvider,
  CapabilityProviderOptions,
  EffectivePermissions,
  MissingGrant,
  PluginGrants,
} from './types.js';
