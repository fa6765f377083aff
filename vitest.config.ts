import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Tests import workspace packages from their TypeScript sources (the `@toolhost/source` export
// condition), so a test run never sees a stale `dist/`.
const conditions = ['@toolhost/source', 'import', 'module', 'node', 'default'];

/**
 * The security files the second security run ("security (process sandbox)") skips. The rule: a
 * file runs twice only if it holds plugins in the suite's sandbox (`SECURITY_SANDBOX`, named or
 * through `useHarness().start` without a sandbox of its own). These never do: they make their
 * own hosts in a sandbox they name, test pure code, or (build-confinement) stop every attack in
 * the bundler before an isolate exists. test/security/mode.test.ts checks the list against it.
 */
export const SANDBOX_INDEPENDENT = [
  'test/security/build-confinement.test.ts',
  'test/security/redteam/control-links.test.ts',
  'test/security/redteam/exec-parent-grant.test.ts',
  'test/security/redteam/host-dependencies.test.ts',
  'test/security/redteam/inherited-descriptors.test.ts',
  'test/security/redteam/prompt-line-invisible.test.ts',
  'test/security/redteam/request-state-owner.test.ts',
  'test/security/redteam/seccomp-mount-api.test.ts',
  'test/security/redteam/server-etc-secrets.test.ts',
];

/**
 * Files that need a module graph of their own: they replace a module of the host with `vi.mock`,
 * which would leak into the files that run after them in the same worker. Every other file shares
 * its worker's modules with the files before it (`isolate: false`): importing the host's sources
 * once per worker instead of once per file saves about half a second of CPU a file. A file
 * therefore leaves no global behind: it restores what it stubs (`restoreMocks` for spies) and
 * unregisters what it registers, as test/serve/telemetry.test.ts does with the OTel globals.
 */
export const OWN_MODULES = [
  'packages/host/test/host/pipeline.test.ts',
  // Real MCP clients in this process that must read a quick tool's progress before its result:
  // over 2026-07-28 that is a bet on when the client reads (serve/server.ts), so they run in a
  // fresh process, whose small heap has no long collections and no timers of earlier files.
  'test/mcp/real-clients.test.ts',
  'test/mcp/serve-progress.test.ts',
];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ['@toolhost/source'] } },
  test: {
    exclude: ['**/node_modules/**', '**/dist/**', 'test/fixtures/**'],
    projects: [
      {
        extends: true,
        test: {
          name: 'toolhost',
          include: ['packages/*/test/**/*.test.ts', 'test/**/*.test.ts', 'plugins/*/**/*.test.ts'],
          exclude: [
            '**/node_modules/**',
            '**/dist/**',
            'test/fixtures/**',
            'test/dashboard/browser/**',
            ...OWN_MODULES,
          ],
        },
      },
      // Vitest runs projects in the order of their names: this one, whose files are among the
      // longest and start a fresh process each, goes early, not last on one worker.
      {
        extends: true,
        test: { name: 'own modules', include: OWN_MODULES, isolate: true },
      },
      // The dashboard in a real headless Chromium, driving a real `toolhost dev`: each file starts
      // both, so they get more time than a unit test.
      {
        extends: true,
        test: {
          name: 'dashboard (chromium)',
          include: ['test/dashboard/browser/**/*.test.ts'],
          testTimeout: 90_000,
          hookTimeout: 120_000,
        },
      },
      // The security suite once more with every plugin it does not place itself in the executor
      // process: escapes must fail the same way whichever sandbox holds the isolate.
      {
        extends: true,
        test: {
          name: 'security (process sandbox)',
          include: ['test/security/**/*.test.ts'],
          exclude: ['**/node_modules/**', '**/dist/**', ...SANDBOX_INDEPENDENT],
          env: { TOOLHOST_SECURITY_SANDBOX: 'process' },
        },
      },
    ],
    // isolated-vm requires it on Node >= 20 (V8 heap sharing with Node's snapshot corrupts isolates).
    pool: 'forks',
    isolate: false,
    restoreMocks: true,
    execArgv: ['--no-node-snapshot'],
    // One test file per core, all of them: Vitest's default leaves one core idle, and on two
    // cores that is one worker. No test may depend on running alone (no wall-clock bounds; timing
    // lives in bench/), so a neighbour's load can slow a file but not fail it.
    maxWorkers: availableParallelism(),
    fileParallelism: true,
    // Hang guards, not bounds: generous, because a loaded machine slows every file.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
