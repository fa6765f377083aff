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
