import * as path from 'node:path';
/**
 * One plugin's capability provider: the only way its isolate's `ctx.fetch` and `ctx.fs` reach
 * the host. Every request is validated (`args.ts`), checked against the effective permissions
 * (declared ∩ granted, fixed when the provider is made) and bounded by the limits.
 */
import { capabilityLimits } from '../config/limits.js';
import type { TraceContext } from '../types.js';
import { Limiter } from '../util/limiter.js';
import { ControlGuard } from '../workspace/control.js';
import { fetchArgs, mkdirArgs, parseArgs, pathArgs, renameArgs, rmArgs, writeFileArgs } from './args.js';
import { aborted, unknownCapability } from './errors.js';
import { createFetchCapability } from './fetch.js';
import { cachingResolver, systemResolver } from './fetch-resolve.js';
import { nodeTransport } from './fetch-transport.js';
import { createFsCapability } from './fs/index.js';
import { declaredHostPatterns, effectivePermissions, grantedHostPatterns } from './grants.js';
import { type HostPattern, parseHostPattern } from './host-patterns.js';
import type { CapabilityProvider, CapabilityProviderOptions } from './types.js';

/** The capabilities served here; `Record` makes a new name fail to compile until handled. */
type CapabilityName =
  | 'fetch'
  | 'fs.appendFile'
  | 'fs.mkdir'
  | 'fs.readFile'
  | 'fs.readdir'
  | 'fs.rename'
  | 'fs.rm'
  | 'fs.stat'
  | 'fs.writeFile';

export function createCapabilityProvider(options: CapabilityProviderOptions): CapabilityProvider {
  const limits = capabilityLimits(options.limits);
  const effective = effectivePermissions(options.permissions, options.grants);
  const control = ControlGuard.forPlugins(path.resolve(options.root), options.controlPaths);
  const fs = createFsCapability({ ...options, effective, limits, control });
  const serveFetch = createFetchCapability({
    pluginId: options.pluginId,
    effective: effective.net.map(parseHostPattern).filter((p): p is HostPattern => p !== undefined),
    declared: declaredHostPatterns(options.permissions),
    granted: grantedHostPatterns(options.grants),
    limits,
    resolve: options.resolve ?? cachingResolver(systemResolver),
    transport: options.transport ?? nodeTransport(),
  });
  // One plugin's file operations at once: each may hold a thread of libuv's pool, which the
  // host's own file operations share. More wait their turn; one whose call ends meanwhile leaves.
  const fsSlots = new Limiter(limits.fsConcurrency);
  const slot = <T>(name: CapabilityName, signal: AbortSignal, work: () => Promise<T>) =>
    fsSlots.run(work, signal, () =>
      aborted(name, `ctx.${name} was aborted while it waited for a ctx.fs slot: its call ended`),
    );
  // Built on first use: most plugins never fetch or write, and the two schemas were a tenth of a
  // warm start of 100 plugins (bench/scale.mjs), one pair per plugin.
  let fetchArgsOf: ReturnType<typeof fetchArgs> | undefined;
  let writeArgsOf: ReturnType<typeof writeFileArgs> | undefined;
  const fetchSchema = () => {
    fetchArgsOf ??= fetchArgs(limits, options.pluginId);
    return fetchArgsOf;
  };
  const writeSchema = () => {
    writeArgsOf ??= writeFileArgs(limits);
    return writeArgsOf;
  };

  const handlers: Record<
    CapabilityName,
    (args: unknown, signal: AbortSignal, trace: TraceContext | undefined) => Promise<unknown>
  > = {
    fetch: (args, signal, trace) => serveFetch(parseArgs('fetch', fetchSchema(), args), signal, trace),
    'fs.readFile': (args, signal) => {
      const { path } = parseArgs('fs.readFile', pathArgs, args);
      return slot('fs.readFile', signal, () => fs.readFile(path));
    },
    'fs.writeFile': (args, signal) => {
      const { path, data } = parseArgs('fs.writeFile', writeSchema(), args);
      return slot('fs.writeFile', signal, () => fs.writeFile(path, data));
    },
    'fs.readdir': (args, signal) => {
      const { path } = parseArgs('fs.readdir', pathArgs, args);
      return slot('fs.readdir', signal, () => fs.readdir(path));
    },
    'fs.stat': (args, signal) => {
      const { path } = parseArgs('fs.stat', pathArgs, args);
      return slot('fs.stat', signal, () => fs.stat(path));
    },
    'fs.appendFile': (args, signal) => {
      const { path, data } = parseArgs('fs.appendFile', writeSchema(), args);
      return slot('fs.appendFile', signal, () => fs.appendFile(path, data));
    },
    'fs.mkdir': (args, signal) => {
      const { path, recursive } = parseArgs('fs.mkdir', mkdirArgs, args);
      return slot('fs.mkdir', signal, () => fs.mkdir(path, recursive ?? false));
    },
    'fs.rm': (args, signal) => {
      const { path, recursive, force } = parseArgs('fs.rm', rmArgs, args);
      return slot('fs.rm', signal, () => fs.rm(path, recursive ?? false, force ?? false));
    },
    'fs.rename': (args, signal) => {
      const { from, to } = parseArgs('fs.rename', renameArgs, args);
      return slot('fs.rename', signal, () => fs.rename(from, to));
    },
  };

  return {
    async invoke(capability, args, signal, trace) {
      if (typeof capability !== 'string' || !Object.hasOwn(handlers, capability)) {
        throw unknownCapability(String(capability));
      }
      const name = capability as CapabilityName;
      if (signal.aborted) throw aborted(name, `ctx.${name} was aborted: the call was cancelled`);
      return handlers[name](args, signal, trace);
    },
    envGranted: effective.env,
    envValues(processEnv) {
      const values: [string, string][] = [];
      for (const name of effective.env) {
        const value = Object.hasOwn(processEnv, name) ? processEnv[name] : undefined;
        if (value !== undefined) values.push([name, value]);
      }
      return Object.fromEntries(values);
    },
    effective,
  };
}
