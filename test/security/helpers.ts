/**
 * Shared harness of the security suite: writes hostile plugins into fresh temp projects, starts
 * hosts on them, and snapshots the host realm so a test can prove nothing of it was reached.
 */
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type CallOutcome,
  createHost,
  type HostOptions,
  resultText,
  type Session,
  type ToolHost,
} from '@toolhost/host';
import type { AvailabilityContext, ToolResult } from '@toolhost/plugin-sdk';
import { afterEach, expect } from 'vitest';

/**
 * The sandbox the security suite runs its plugins in unless a test names one: `inline`, and
 * `process` in the suite's second run (vitest.config.ts sets TOOLHOST_SECURITY_SANDBOX).
 */
export const SECURITY_SANDBOX: 'inline' | 'process' =
  process.env.TOOLHOST_SECURITY_SANDBOX === 'process' ? 'process' : 'inline';

/** The repository checkout: no message a plugin or model sees may name it. */
export const REPO_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export const HEADER = `import { definePlugin, defineTool } from '@toolhost/plugin-sdk';\nimport * as z from 'zod';\n`;

/** Small limits so that every breach test ends quickly. */
export const SMALL_LIMITS = { timeoutMs: 1000, cpuMs: 500 } as const;

/** A plugin that must keep working beside (or after) a hostile one. */
export const HEALTHY_ID = 'healthy';
export const HEALTHY_SOURCE = `${HEADER}
export default definePlugin({
  id: 'healthy',
  tools: [
    defineTool({
      name: 'healthy_echo',
      description: 'Echoes a text',
      input: z.object({ text: z.string() }),
      execute: ({ text }) => 'echo:' + text,
    }),
  ],
});
`;

export interface AttackToolOptions {
  /** Module-level code, evaluated at load (before the plugin registers). */
  readonly pre?: string;
  /** The plugin's permissions, as a JS expression. */
  readonly permissions?: string;
  /** The input schema, as a JS expression; default accepts any object. */
  readonly input?: string;
  /** Hooks, as a JS expression. */
  readonly hooks?: string;
  /** More `defineTool(...)` expressions. */
  readonly moreTools?: readonly string[];
}

/**
 * The source of a plugin with one tool `attack` whose `execute(input, ctx)` body is `body`
 * (plain JS: the plugin is bundled by esbuild, never type-checked).
 */
export function attackPlugin(id: string, body: string, options: AttackToolOptions = {}): string {
  const tools = [
    `defineTool({
      name: 'attack',
      description: 'A hostile tool',
      input: ${options.input ?? 'z.looseObject({})'},
      execute: async (input: any, ctx: any) => {
${body}
      },
    })`,
    ...(options.moreTools ?? []),
  ];
  return `${HEADER}
${options.pre ?? ''}
export default definePlugin({
  id: ${JSON.stringify(id)},
  ${options.permissions === undefined ? '' : `permissions: ${options.permissions},`}
  ${options.hooks === undefined ? '' : `hooks: ${options.hooks},`}
  tools: [${tools.join(',\n')}],
});
`;
}

/** A second tool for {@link AttackToolOptions.moreTools}. */
export function extraTool(name: string, body: string): string {
  return `defineTool({
      name: ${JSON.stringify(name)},
      description: 'Another tool',
      input: z.looseObject({}),
      execute: async (input: any, ctx: any) => {
${body}
      },
    })`;
}

export interface StartOptions {
  /** Plugin id → source of `plugins/<id>/index.ts`. */
  readonly plugins: Readonly<Record<string, string>>;
  readonly sandbox?: 'inline' | 'process';
  /** `plugins.<id>` settings (the config's `plugins`). */
  readonly settings?: HostOptions['plugins'];
  /** Default sandbox limits of every plugin (the config's `limits.plugin`). */
  readonly limits?: NonNullable<HostOptions['limits']>['plugin'];
  /** Caps on plugins' log lines (the config's `limits.logs`). */
  readonly logs?: NonNullable<HostOptions['limits']>['logs'];
  readonly availability?: AvailabilityContext;
  readonly builtins?: HostOptions['builtins'];
  readonly hooks?: HostOptions['hooks'];
  /** An existing project root (files prepared by the test); default: a fresh one. */
  readonly root?: string;
}

export interface Started {
  readonly root: string;
  readonly host: ToolHost;
  readonly session: Session;
}

/**
 * Per-file harness: fresh temp projects and hosts, all closed and removed after each test.
 * Call once at the top of a `describe`.
 */
export function useHarness() {
  const hosts: ToolHost[] = [];
  const roots: string[] = [];

  afterEach(async () => {
    await Promise.all(hosts.splice(0).map((host) => host.close()));
    await Promise.all(roots.splice(0).map((root) => rm(root, { recursive: true, force: true })));
  });

  async function project(): Promise<string> {
    // Real path: symlinked tmp folders would otherwise hide a leak of the resolved path.
    const root = await realpath(await mkdtemp(path.join(tmpdir(), 'toolhost-sec-')));
    roots.push(root);
    return root;
  }

  async function start(options: StartOptions): Promise<Started> {
    const root = options.root ?? (await project());
    for (const [id, source] of Object.entries(options.plugins)) {
      await mkdir(path.join(root, 'plugins', id), { recursive: true });
      await writeFile(path.join(root, 'plugins', id, 'index.ts'), source);
    }
    const host = await createHost({
      root,
      builtins: options.builtins ?? false,
      availability: options.availability ?? { env: {} },
      ...(options.hooks === undefined ? {} : { hooks: options.hooks }),
      sandbox: options.sandbox ?? SECURITY_SANDBOX,
      cache: false,
      ...(options.settings === undefined ? {} : { plugins: options.settings }),
      ...(options.limits === undefined && options.logs === undefined
        ? {}
        : {
            limits: {
              ...(options.limits === undefined ? {} : { plugin: options.limits }),
              ...(options.logs === undefined ? {} : { logs: options.logs }),
            },
          }),
    });
    hosts.push(host);
    return { root, host, session: host.session() };
  }

  return { project, start };
}

/** The text the model reads. */
export function textOf(outcome: CallOutcome | ToolResult): string {
  return resultText('result' in outcome ? outcome.result : outcome);
}

/** Asserts that `session` still serves `healthy_echo` normally. */
export async function expectHealthy(session: Session): Promise<void> {
  const outcome = await session.call('healthy_echo', { text: 'still here' });
  expect(outcome.result.isError, textOf(outcome)).toBeUndefined();
  expect(textOf(outcome)).toBe('echo:still here');
}

/** Parses the JSON text a probing tool returned. */
export function reportOf<T = Record<string, unknown>>(outcome: CallOutcome): T {
  expect(outcome.result.isError, textOf(outcome)).toBeUndefined();
  return JSON.parse(textOf(outcome)) as T;
}

// ---- the host realm: what must never change ---------------------------------------------------

declare global {
  var __hostSentinel: { readonly marker: string } | undefined;
}

const SENTINEL = Object.freeze({ marker: 'host-sentinel' });
globalThis.__hostSentinel = SENTINEL;

/** A fingerprint of the host realm's intrinsics, globals and environment. */
export interface RealmSnapshot {
  readonly objectProto: string[];
  readonly arrayProto: string[];
  readonly functionProto: string[];
  readonly stringProto: string[];
  readonly promiseProto: string[];
  readonly globals: string[];
  readonly env: string;
  readonly intrinsics: readonly unknown[];
  readonly cwd: string;
}

const keysOf = (value: object) => Reflect.ownKeys(value).map(String).sort();

export function snapshotRealm(): RealmSnapshot {
  return {
    objectProto: keysOf(Object.prototype),
    arrayProto: keysOf(Array.prototype),
    functionProto: keysOf(Function.prototype),
    stringProto: keysOf(String.prototype),
    promiseProto: keysOf(Promise.prototype),
    globals: keysOf(globalThis),
    env: JSON.stringify(Object.entries(process.env).sort(([a], [b]) => (a < b ? -1 : 1))),
    intrinsics: [
      JSON.stringify,
      JSON.parse,
      Promise.prototype.then,
      Array.prototype.map,
      Object.prototype.toString,
      Function.prototype.call,
      Error.prepareStackTrace,
      Object.getPrototypeOf(Object.prototype),
    ],
    cwd: process.cwd(),
  };
}

/** Asserts the host realm is as `before`: no pollution, no new globals, same env and intrinsics. */
export function expectRealmIntact(before: RealmSnapshot): void {
  const after = snapshotRealm();
  expect(after.objectProto).toEqual(before.objectProto);
  expect(after.arrayProto).toEqual(before.arrayProto);
  expect(after.functionProto).toEqual(before.functionProto);
  expect(after.stringProto).toEqual(before.stringProto);
  expect(after.promiseProto).toEqual(before.promiseProto);
  expect(after.globals).toEqual(before.globals);
  expect(after.env).toBe(before.env);
  expect(after.cwd).toBe(before.cwd);
  after.intrinsics.forEach((value, index) => {
    expect(value, `intrinsic #${index}`).toBe(before.intrinsics[index]);
  });
  expect(globalThis.__hostSentinel).toBe(SENTINEL);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
}

/** Asserts `text` names no host folder: not the repository, not the project root, not the home. */
export function expectNoHostPaths(text: string, root?: string): void {
  expect(text).not.toContain(REPO_DIR);
  expect(text).not.toContain('/node_modules/');
  expect(text).not.toMatch(/file:\/\//);
  if (root !== undefined) expect(text).not.toContain(root);
  expect(text).not.toContain(`${tmpdir()}${path.sep}toolhost-sec-`);
}

/**
 * The body of a tool that runs each attempt (a function body) in turn and returns, as JSON, what
 * each gave: `ok: <value>`, or for an error `error: <message>` (`report: 'message'`) or
 * `<code>: <message>` (`report: 'code'`, where an `undefined` value reads `ok: null`).
 */
export function attempts(list: readonly string[], report: 'message' | 'code' = 'message'): string {
  const ok = report === 'code' ? 'JSON.stringify(value ?? null)' : 'JSON.stringify(value)';
  const failed =
    report === 'code'
      ? "String(e && e.code) + ': ' + String(e && e.message)"
      : "'error: ' + String(e && e.message)";
  return `
    const out: string[] = [];
    for (const attempt of [${list.map((a) => `async () => { ${a} }`).join(',\n')}]) {
      try { const value = await attempt(); out.push('ok: ' + ${ok}); }
      catch (e: any) { out.push(${failed}); }
    }
    return JSON.stringify(out);`;
}
