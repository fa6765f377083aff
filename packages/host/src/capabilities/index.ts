export { DEFAULT_CAPABILITY_LIMITS } from '../config/limits.js';
export type { CapabilityErrorCode } from './errors.js';
export { CapabilityError, isCapabilityError } from './errors.js';
export type { FetchReply } from './fetch.js';
export type { FetchResolver } from './fetch-resolve.js';
export { cachingResolver, hostAddresses, systemResolver } from './fetch-resolve.js';
export type { FetchTransport, TransportRequest, TransportResponse } from './fetch-transport.js';
export { nodeTransport } from './fetch-transport.js';
export { normalizeFsRoot } from './fs-roots.js';
export { effectivePermissions, missingGrants } from './grants.js';
export type { HostPattern } from './host-patterns.js';
export { parseHostPattern } from './host-patterns.js';
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
