import { describe, expect, it } from 'vitest';
import {
  capabilityLimits,
  DEFAULT_LOG_LIMITS,
  execDeadline,
  MAX_TIMER_MS,
  pluginLimits,
  resolveLimits,
} from '../../src/config/limits.js';
import { parseConfig } from '../../src/config/load.js';

describe('resolveLimits: one rule for every limit', () => {
  it('defaults agree: plugins, MCP calls and exec inherit limits.timeoutMs', () => {
    const table = resolveLimits(undefined);
    expect(table.call).toEqual({ timeoutMs: 30_000, hookTimeoutMs: 10_000, maxResultChars: 4_000_000 });
    expect(table.pluginDefaults).toEqual({
      timeoutMs: 30_000,
      cpuMs: 10_000,
      memoryMb: 64,
      maxResultChars: 4_000_000,
    });
    expect(table.mcpCall).toEqual({ ms: 30_000, setting: 'limits.timeoutMs', selfEnforced: true });
    expect(execDeadline(table.call.timeoutMs, undefined)).toMatchObject({
      ms: 30_000,
      setting: 'limits.timeoutMs',
    });
  });

  it('raising limits.timeoutMs raises every source that sets none of its own', () => {
    const table = resolveLimits({ timeoutMs: 120_000 });
    expect(table.pluginDefaults.timeoutMs).toBe(120_000);
    expect(table.mcpCall.ms).toBe(120_000);
    expect(pluginLimits(table, 'p', undefined).timeout).toEqual({
      ms: 120_000,
      setting: 'limits.timeoutMs',
      selfEnforced: true,
    });
  });

  it("a source's own wall clock replaces the call limit, higher or lower, and says where it came from", () => {
    const table = resolveLimits({ timeoutMs: 1_000, mcpCallTimeoutMs: 60_000, plugin: { timeoutMs: 500 } });
    expect(table.mcpCall).toEqual({ ms: 60_000, setting: 'limits.mcpCallTimeoutMs', selfEnforced: true });
    // A plugin's sandbox stops its calls itself; the wrapper keeps only a backstop.
    expect(pluginLimits(table, 'slow', { timeoutMs: 90_000 }).timeout).toEqual({
      ms: 90_000,
      setting: 'plugins.slow.limits.timeoutMs',
      selfEnforced: true,
    });
    expect(pluginLimits(table, 'other', undefined).timeout).toEqual({
      ms: 500,
      setting: 'limits.plugin.timeoutMs',
      selfEnforced: true,
    });
    expect(execDeadline(table.call.timeoutMs, 5_000)).toMatchObject({
      ms: 5_000,
      setting: 'builtins.exec.timeoutMs',
    });
  });

  it('options given in code win over the config file, field by field', () => {
    const table = resolveLimits(
      { timeoutMs: 1_000, hookTimeoutMs: 2_000, mcpCallTimeoutMs: 3_000 },
      { call: { timeoutMs: 4_000 }, mcpCallTimeoutMs: 5_000, plugin: { cpuMs: 6_000 } },
    );
    expect(table.call).toMatchObject({ timeoutMs: 4_000, hookTimeoutMs: 2_000 });
    expect(table.mcpCall.ms).toBe(5_000);
    expect(table.pluginDefaults).toMatchObject({ timeoutMs: 4_000, cpuMs: 6_000 });
  });

  it('caps every millisecond value given in code at what a timer can hold', () => {
    const table = resolveLimits(undefined, {
      call: { timeoutMs: 1e12, hookTimeoutMs: Number.MAX_SAFE_INTEGER },
      plugin: { cpuMs: 1e15 },
      mcpCallTimeoutMs: 1e13,
    });
    expect(table.call.timeoutMs).toBe(MAX_TIMER_MS);
    expect(table.call.hookTimeoutMs).toBe(MAX_TIMER_MS);
    expect(table.pluginDefaults.cpuMs).toBe(MAX_TIMER_MS);
    expect(table.mcpCall.ms).toBe(MAX_TIMER_MS);
    expect(pluginLimits(table, 'p', { timeoutMs: 1e14 }).limits.timeoutMs).toBe(MAX_TIMER_MS);
  });

  it('the config file refuses a duration a timer cannot hold, naming the field', () => {
    for (const limits of [
      { timeoutMs: MAX_TIMER_MS + 1 },
      { hookTimeoutMs: 1e12 },
      { mcpCallTimeoutMs: 2 ** 31 },
      { plugin: { cpuMs: 1e10 } },
    ]) {
      const outcome = parseConfig({ limits }, 'c.json');
      expect(outcome.ok).toBe(false);
      expect(outcome.ok ? '' : outcome.issues[0]?.message).toMatch(/2147483647/);
    }
    expect(parseConfig({ builtins: { exec: { timeoutMs: 2 ** 40 } } }, 'c.json').ok).toBe(false);
    expect(parseConfig({ limits: { timeoutMs: MAX_TIMER_MS } }, 'c.json').ok).toBe(true);
  });
});

describe('capability limits from config', () => {
  it('fetchMaxBytes and fetchTimeoutMs come from limits.plugin, then plugins.<id>.limits, and stay out of the sandbox limits', () => {
    const config = parseConfig(
      {
        limits: { plugin: { fetchMaxBytes: 1000, fetchTimeoutMs: 2000 } },
        plugins: { big: { limits: { fetchMaxBytes: 9000 } } },
      },
      'c.json',
    );
    if (!config.ok) throw new Error(JSON.stringify(config.issues));
    const table = resolveLimits(config.config.limits);
    const big = pluginLimits(table, 'big', config.config.plugins?.big?.limits);
    expect(big.capabilities).toEqual({ fetchMaxBytes: 9000, fetchTimeoutMs: 2000 });
    expect(big.limits).not.toHaveProperty('fetchMaxBytes');
    expect(pluginLimits(table, 'other', undefined).capabilities).toEqual({
      fetchMaxBytes: 1000,
      fetchTimeoutMs: 2000,
    });
    expect(parseConfig({ limits: { plugin: { fetchMaxBytes: -1 } } }, 'c.json').ok).toBe(false);
  });

  it('fsConcurrency comes from limits.plugin, then plugins.<id>.limits, is at least 1, and stays out of the sandbox limits', () => {
    const config = parseConfig(
      { limits: { plugin: { fsConcurrency: 4 } }, plugins: { one: { limits: { fsConcurrency: 1 } } } },
      'c.json',
    );
    if (!config.ok) throw new Error(JSON.stringify(config.issues));
    const table = resolveLimits(config.config.limits);
    const one = pluginLimits(table, 'one', config.config.plugins?.one?.limits);
    expect(one.capabilities).toEqual({ fsConcurrency: 1 });
    expect(one.limits).not.toHaveProperty('fsConcurrency');
    expect(pluginLimits(table, 'other', undefined).capabilities).toEqual({ fsConcurrency: 4 });
    expect(capabilityLimits(undefined).fsConcurrency).toBe(2);
    expect(parseConfig({ plugins: { one: { limits: { fsConcurrency: 0 } } } }, 'c.json').ok).toBe(false);
  });

  it('fetchConcurrency comes from limits.plugin, then plugins.<id>.limits; 0 is refused', () => {
    const config = parseConfig(
      {
        limits: { plugin: { fetchConcurrency: 4 } },
        plugins: { busy: { limits: { fetchConcurrency: 32 } } },
      },
      'c.json',
    );
    if (!config.ok) throw new Error(JSON.stringify(config.issues));
    const table = resolveLimits(config.config.limits);
    const busy = pluginLimits(table, 'busy', config.config.plugins?.busy?.limits);
    expect(busy.capabilities).toEqual({ fetchConcurrency: 32 });
    expect(busy.limits).not.toHaveProperty('fetchConcurrency');
    expect(pluginLimits(table, 'other', undefined).capabilities).toEqual({ fetchConcurrency: 4 });
    expect(parseConfig({ plugins: { x: { limits: { fetchConcurrency: 0 } } } }, 'c.json').ok).toBe(false);
  });
});

describe('log caps from config', () => {
  it('limits.logs sets each cap over its default; a cap of 0 or an unknown key is refused', () => {
    const config = parseConfig({ limits: { logs: { linesPerCall: 50, lineBytes: 2000 } } }, 'c.json');
    if (!config.ok) throw new Error(JSON.stringify(config.issues));
    expect(resolveLimits(config.config.limits).logs).toEqual({
      ...DEFAULT_LOG_LIMITS,
      linesPerCall: 50,
      lineBytes: 2000,
    });
    expect(resolveLimits(undefined).logs).toEqual(DEFAULT_LOG_LIMITS);
    expect(parseConfig({ limits: { logs: { bytesPerCall: 0 } } }, 'c.json').ok).toBe(false);
    expect(parseConfig({ limits: { logs: { linesPerHour: 5 } } }, 'c.json').ok).toBe(false);
  });
});
