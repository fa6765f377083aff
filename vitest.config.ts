import { defineConfig } from 'vitest/config';

// Tests import workspace packages from their TypeScript sources (the `@toolhost/source` export
// condition), so a test run never sees a stale `dist/`.
const conditions = ['@toolhost/source', 'import', 'module', 'node', 'default'];

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
          exclude: ['**/node_modules/**', '**/dist/**', 'test/fixtures/**', 'test/dashboard/browser/**'],
        },
      },
      // The dashboard in a real headless Chromium, driving a real `toolhost dev`: each file starts
      // both, so they get more time than a unit test.
      {
        extends: true,
        test: {
          name: 'dashboard (chromium)',
          include: ['test/dashboard/browser/**/*.test.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      // The security suite once more with every plugin it does not place itself in the executor
      // process: escapes must fail the same way whichever sandbox holds the isolate.
      {
        extends: true,
        test: {
          name: 'security (process sandbox)',
          include: ['test/security/**/*.test.ts'],
          env: { TOOLHOST_SECURITY_SANDBOX: 'process' },
        },
      },
    ],
    // isolated-vm requires it on Node >= 20 (V8 heap sharing with Node's snapshot corrupts isolates).
    pool: 'forks',
    execArgv: ['--no-node-snapshot'],
    testTimeout: 20_000,
  },
});
